import Entitlements
import StoreKitFormats
import Foundation
import WidgetTimeline

/// Shared values for the widget and watch tests: one catalog gate, instants and snapshots.
enum Fixtures {
    static func date(_ text: String) -> Date {
        guard let date = ISO8601.date(from: text) else { preconditionFailure("bad fixture date \(text)") }
        return date
    }

    static let issuedAt = date("2026-03-01T12:00:00Z")
    static let now = date("2026-03-01T12:03:00Z")
    static let expiry = date("2026-03-05T09:30:00Z")

    static let widgetsCopy = PaywallCopy(
        title: "Widgets need Plus",
        message: "See your habits at a glance on the Home Screen and Lock Screen with Habits Plus.",
        callToAction: "Start free trial")
    static let watchCopy = PaywallCopy(
        title: "Plus on your wrist", message: "Track habits from Apple Watch with Habits Plus.",
        callToAction: "Subscribe on iPhone")

    static let gate = FeatureGate(rules: [
        "widgets": FeatureRule(entitlement: "plus", paywall: widgetsCopy),
        "watchApp": FeatureRule(entitlement: "plus", paywall: watchCopy),
        "export": FeatureRule(entitlement: nil, paywall: FeatureGate.fallbackCopy),
    ])

    static func snapshot(
        _ status: EntitlementStatus, issuedAt: Date = issuedAt, nextTransition: Date? = nil, generation: Int64 = 7
    ) -> EntitlementSnapshot {
        EntitlementSnapshot(
            generation: generation, issuedAt: issuedAt, nextTransition: nextTransition, entitlements: ["plus": status])
    }

    /// A monthly subscription in force until ``expiry``.
    static let subscribed = snapshot(
        EntitlementStatus(active: true, state: .subscribed, expiresAt: expiry, productId: "plus.monthly", willRenew: false),
        nextTransition: expiry)

    /// A lifetime purchase: no end, nothing pending.
    static let lifetime = snapshot(EntitlementStatus(active: true, state: .purchased, productId: "plus.lifetime"))

    static let expired = snapshot(
        EntitlementStatus(active: false, state: .expired, expiresAt: date("2026-02-28T00:00:00Z"), productId: "plus.monthly"))

    static let widgetsPaywall = Paywall(feature: "widgets", reason: .expired, copy: widgetsCopy)
}
