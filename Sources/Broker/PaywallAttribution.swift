#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import EntitlementDefaults
import Entitlements
import StoreKitFormats

/// Links a purchase to the paywall before it: the daemon, having journaled new transactions,
/// appends `upgradedFromPaywall` for each feature a purchase unlocks when a `paywallShown` for
/// that feature lies within the catalog's `attributionWindow` before the purchase (its
/// `purchaseDate`, or the moment the daemon journals it, so that a purchase dated by the store's
/// clock and one dated by the device's both count). One upgrade per shown paywall: a
/// `paywallShown` already followed by an `upgradedFromPaywall` for the feature converts no more.
enum PaywallAttribution {
    /// The `upgradedFromPaywall` events `transactions` earn against the log's `events`.
    static func upgrades(
        for transactions: [StoreTransaction], catalog: Catalog, events: [PaywallEvent], journaledAt now: Date
    ) -> [PaywallEvent] {
        var upgrades: [PaywallEvent] = []
        var converted: [String: Date] = [:]
        for event in events where event.kind == .upgradedFromPaywall {
            converted[event.feature] = max(converted[event.feature] ?? event.time, event.time)
        }
        for transaction in transactions where transaction.revocationDate == nil {
            let granted = catalog.entitlementsByProduct[transaction.productId] ?? []
            guard !granted.isEmpty else { continue }
            for (feature, rule) in catalog.featureGate.rules.sorted(by: { $0.key < $1.key }) {
                guard let entitlement = rule.entitlement, granted.contains(entitlement) else { continue }
                let shown = events.last { event in
                    event.kind == .paywallShown && event.feature == feature
                        && [transaction.purchaseDate, now].contains { instant in
                            event.time <= instant && catalog.attributionWindow.added(to: event.time) >= instant
                        }
                }
                guard let shown, converted[feature].map({ $0 < shown.time }) ?? true else { continue }
                let time = max(shown.time, min(transaction.purchaseDate, now))
                upgrades.append(PaywallEvent(.upgradedFromPaywall, feature: feature, reason: shown.reason, time: time))
                converted[feature] = time
            }
        }
        return upgrades
    }
}
