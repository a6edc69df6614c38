/// Adding items to a count-limited feature would go past what the user may have: the numbers a
/// "3 of 3 used" paywall shows, and the paywall itself.
///
/// Thrown by ``FeatureGate/ensureCanAdd(_:adding:snapshot:wallClock:currentCount:)``; carries the
/// paywall to show, so the caller needs no second lookup.
public struct FeatureLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The feature asked about, e.g. `cards`.
    public var feature: String
    /// How many items the user already has.
    public var current: Int
    /// How many items the user may have: the free allowance, or 0 for a feature free users cannot use at all.
    public var limit: Int
    /// How many more fit (`max(0, limit - current)`), fewer than were asked for.
    public var remaining: Int
    /// How many items the caller tried to add.
    public var adding: Int
    /// What to show: reason, title, message, call to action.
    public var paywall: Paywall

    public var description: String {
        "\(feature): adding \(adding) would exceed the limit of \(limit) (\(current) used, \(remaining) remaining): \(paywall.copy.title)"
    }
}
