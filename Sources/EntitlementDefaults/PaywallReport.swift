#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entitlements

/// What each feature's paywall did: how often it was shown, dismissed and converted, and how
/// free and premium users used the feature, from the records of a ``PaywallAnalyticsLog``. What
/// `entitlementctl paywall report` prints.
///
/// ```swift
/// let report = PaywallReport(events: try log.events(), since: lastWeek, features: gate.rules.keys)
/// let best = report.features.max { ($0.value.conversion ?? 0) < ($1.value.conversion ?? 0) }
/// ```
public struct PaywallReport: Sendable, Hashable {
    /// One feature's counts.
    public struct Counts: Sendable, Hashable {
        /// `paywallShown` records.
        public var shown = 0
        /// `paywallDismissed` records.
        public var dismissed = 0
        /// `upgradedFromPaywall` records.
        public var upgraded = 0
        /// `featureUsed` records of premium users.
        public var usedPremium = 0
        /// `featureUsed` records of everyone else.
        public var usedFree = 0

        /// No events.
        public init() {}

        /// `upgraded / shown`; `nil` when the paywall was never shown.
        public var conversion: Double? { shown == 0 ? nil : Double(upgraded) / Double(shown) }
    }

    /// Counts by feature: every feature named in `features`, and every other one with events.
    public var features: [String: Counts]

    /// The report of `events` at or after `since` (all of them when `nil`), with a zero entry
    /// for each of `features` that had none.
    public init(events: [PaywallEvent], since: Date? = nil, features: some Sequence<String> = [String]()) {
        var counts: [String: Counts] = [:]
        for feature in features { counts[feature] = Counts() }
        for event in events where since.map({ event.time >= $0 }) ?? true {
            switch event.kind {
            case .paywallShown: counts[event.feature, default: Counts()].shown += 1
            case .paywallDismissed: counts[event.feature, default: Counts()].dismissed += 1
            case .upgradedFromPaywall: counts[event.feature, default: Counts()].upgraded += 1
            case .featureUsed:
                if event.tier == .premium { counts[event.feature, default: Counts()].usedPremium += 1 } else {
                    counts[event.feature, default: Counts()].usedFree += 1
                }
            }
        }
        self.features = counts
    }
}
