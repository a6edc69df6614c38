import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// WidgetKit's refresh budget, simulated: a widget gets roughly 40–70 timeline reloads a day and
/// reloads closer than about 5 minutes apart are deferred. This replays the reload policies our
/// provider returns and reports whether they stay inside the budget.
///
/// Only policy-driven reloads are simulated (a snapshot that does not change); reloads the app
/// requests when a new snapshot is published are up to the file watcher and not counted here.
public struct WidgetRefreshBudget: Sendable, Hashable {
    /// Reloads allowed per UTC day. Default 40, the low end of what WidgetKit grants.
    public var reloadsPerDay: Int
    /// The shortest gap WidgetKit honours between reloads, in seconds. Default 300.
    public var minimumReloadSpacing: TimeInterval

    /// A budget of `reloadsPerDay` reloads per UTC day, at least `minimumReloadSpacing` seconds apart.
    public init(reloadsPerDay: Int = 40, minimumReloadSpacing: TimeInterval = 300) {
        self.reloadsPerDay = reloadsPerDay
        self.minimumReloadSpacing = minimumReloadSpacing
    }

    /// What a simulation observed.
    public struct Report: Sendable, Hashable {
        /// The instants at which the policies asked for a reload, in order.
        public var reloads: [Date]
        /// The most reloads requested within one UTC day.
        public var busiestDay: Int
        /// The shortest gap between the start (or a reload) and the next requested reload;
        /// `nil` when there was no reload. Zero or negative means a reload loop.
        public var shortestReloadGap: TimeInterval?
        /// The shortest gap between consecutive entries of any timeline; informational (WidgetKit
        /// shows entries at their dates, but a widget should not churn faster than reloads).
        public var shortestEntryGap: TimeInterval?
        /// The budget the simulation ran against.
        public var budget: WidgetRefreshBudget

        /// A report with the given observations.
        public init(
            reloads: [Date], busiestDay: Int, shortestReloadGap: TimeInterval?, shortestEntryGap: TimeInterval?,
            budget: WidgetRefreshBudget
        ) {
            self.reloads = reloads
            self.busiestDay = busiestDay
            self.shortestReloadGap = shortestReloadGap
            self.shortestEntryGap = shortestEntryGap
            self.budget = budget
        }

        /// No day over ``WidgetRefreshBudget/reloadsPerDay`` and no two reloads closer than
        /// ``WidgetRefreshBudget/minimumReloadSpacing``.
        public var isWithinBudget: Bool {
            busiestDay <= budget.reloadsPerDay && (shortestReloadGap ?? .infinity) >= budget.minimumReloadSpacing
        }
    }

    /// Replays `provider` from `start` until `end`: ask for a timeline, wait until its policy's
    /// reload date, ask again. Stops at `.never`, `.atEnd` with no later entry, a reload date after
    /// `end`, a reload date not after the current instant (a loop, reported as a zero gap), or
    /// after `maximumReloads` reloads.
    public func simulate(
        provider: EntitlementTimelineProvider, snapshot: EntitlementSnapshot?, family: WidgetFamily,
        from start: Date, until end: Date, maximumReloads: Int = 10_000
    ) -> Report {
        let context = TimelineProviderContext(family: family)
        var now = start, reloads: [Date] = [], reloadGaps: [TimeInterval] = [], entryGaps: [TimeInterval] = []
        while reloads.count < maximumReloads {
            let timeline = provider.timeline(for: snapshot, in: context, now: now)
            let dates = timeline.entries.map(\.date)
            entryGaps += zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
            let next: Date?
            switch timeline.policy {
            case .after(let date): next = date
            case .atEnd: next = dates.last.flatMap { $0 > now ? $0 : nil }
            case .never: next = nil
            }
            guard let next, next <= end else { break }
            reloadGaps.append(next.timeIntervalSince(now))
            reloads.append(next)
            if next <= now { break }
            now = next
        }
        var perDay: [Int64: Int] = [:]
        for reload in reloads { perDay[Int64((reload.timeIntervalSince1970 / 86_400).rounded(.down)), default: 0] += 1 }
        return Report(
            reloads: reloads, busiestDay: perDay.values.max() ?? 0, shortestReloadGap: reloadGaps.min(),
            shortestEntryGap: entryGaps.min(), budget: self)
    }
}
