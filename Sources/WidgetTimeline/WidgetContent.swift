/// What an unlocked widget shows: a small, deterministic habit summary.
public struct WidgetContent: Sendable, Hashable {
    /// One habit and whether it is done today.
    public struct Habit: Sendable, Hashable {
        /// The habit's name.
        public var name: String
        /// Whether it was checked off today.
        public var doneToday: Bool

        /// A habit and its state today.
        public init(name: String, doneToday: Bool) {
            self.name = name
            self.doneToday = doneToday
        }
    }

    /// The widget's heading.
    public var title: String
    /// The habits listed, in order.
    public var habits: [Habit]
    /// Consecutive days with every habit done.
    public var streakDays: Int

    /// Content from its parts.
    public init(title: String, habits: [Habit], streakDays: Int) {
        self.title = title
        self.habits = habits
        self.streakDays = streakDays
    }

    /// Fixed sample content: the gallery preview and the unlocked state both show it, so output is
    /// reproducible.
    public static let sample = WidgetContent(
        title: "Habits",
        habits: [
            Habit(name: "Read 20 pages", doneToday: true),
            Habit(name: "Walk 8000 steps", doneToday: true),
            Habit(name: "Meditate", doneToday: false),
        ],
        streakDays: 12)

    /// How many habits are done today.
    public var doneCount: Int { habits.filter(\.doneToday).count }

    /// "2/3".
    public var progress: String { "\(doneCount)/\(habits.count)" }

    /// "3 habits · 2 done today".
    public var summary: String {
        "\(habits.count) \(habits.count == 1 ? "habit" : "habits") · \(doneCount) done today"
    }

    /// "Streak: 12 days".
    public var streak: String { "Streak: \(streakDays) \(streakDays == 1 ? "day" : "days")" }
}
