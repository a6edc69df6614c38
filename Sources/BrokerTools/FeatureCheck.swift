import CLISupport
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import FoundationEssentials
import SystemShims

/// One feature's answer as `check` and `features` print it: the gate's decision with the copy
/// for its reason, the count limit, introductory-offer eligibility and whether to present the
/// paywall now (the cooldown over the analytics log).
struct FeatureCheck {
    var feature: String
    var decision: GateDecision
    var introOfferEligible: Bool
    var count: Int?
    /// The free count limit now, `nil` when unlimited or the feature has no count limit.
    var limit: Int?
    var countLimited: Bool
    var remaining: Int?
    var freeDays: Int?
    var daysAgo: Int?
    var presentPaywall: Bool

    /// The answer for a feature `gate` defines.
    init(
        _ feature: String, gate: FeatureGate, snapshot: EntitlementSnapshot?, clock: Date, count: Int? = nil, adding: Int = 1,
        daysAgo: Int? = nil, analytics: [PaywallEvent]
    ) {
        self.feature = feature
        self.count = count
        self.daysAgo = daysAgo
        decision = gate.check(feature, snapshot: snapshot, wallClock: clock, currentCount: count, daysAgo: daysAgo, adding: adding)
        introOfferEligible = decision.paywall?.introOfferEligible ?? gate.introOfferEligible(feature, snapshot: snapshot)
        let rule = gate.rules[feature]
        countLimited = rule?.freeCount != nil
        freeDays = rule?.freeDays
        limit = countLimited ? gate.limit(feature, snapshot: snapshot, wallClock: clock) : nil
        remaining = switch decision {
        case .unlocked(let remaining): remaining
        case .locked: limit.flatMap { limit in count.map { max(0, limit - $0) } }
        }
        let cooldown = rule?.cooldown
        presentPaywall = decision.paywall.map { paywall in
            PaywallAnalyticsLog.shouldPresent(paywall.feature, at: clock, cooldown: cooldown, in: analytics)
        } ?? false
    }

    /// Who used the feature, for `featureUsed`: premium when its entitlement is in force.
    func tier(gate: FeatureGate, snapshot: EntitlementSnapshot?, clock: Date) -> PaywallEvent.Tier {
        gate.rules[feature]?.entitlement != nil && gate.limit(feature, snapshot: snapshot, wallClock: clock) == nil ? .premium : .free
    }

    /// `locked: F: reason (free limit N, R remaining): title — message [call to action] link`.
    var text: String {
        switch decision {
        case .unlocked:
            return "unlocked: \(feature)" + (remaining.map { " (\($0) free remaining)" } ?? "") + "\n"
        case .locked(let paywall):
            let usage = limit.map { limit in " (free limit \(limit)" + (remaining.map { ", \($0) remaining" } ?? "") + ")" } ?? ""
            return "locked: \(feature): \(paywall.reason.rawValue)\(usage): \(paywall.copy.title) — \(paywall.copy.message) [\(paywall.copy.callToAction)] \(paywall.deepLink)\n"
        }
    }

    /// `feature`, `locked`, `introOfferEligible`, `presentPaywall`, `count`, `limit` and
    /// `remaining` on every answer (`limit` and `remaining` null when unlimited); `freeDays` and
    /// `daysAgo` for time-window features; the paywall's reason, copy and deep link when locked.
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "feature": .string(feature), "locked": .bool(!decision.isUnlocked),
            "introOfferEligible": .bool(introOfferEligible), "presentPaywall": .bool(presentPaywall),
            "count": count.map { .int(Int64($0)) } ?? .null, "limit": limit.map { .int(Int64($0)) } ?? .null,
            "remaining": remaining.map { .int(Int64($0)) } ?? .null,
        ]
        if let days = freeDays {
            object["freeDays"] = .int(Int64(days))
            object["daysAgo"] = daysAgo.map { .int(Int64($0)) } ?? .null
        }
        if let paywall = decision.paywall {
            object["reason"] = .string(paywall.reason.rawValue)
            object["title"] = .string(paywall.copy.title)
            object["message"] = .string(paywall.copy.message)
            object["callToAction"] = .string(paywall.copy.callToAction)
            object["deepLink"] = .string(paywall.deepLink)
        }
        return .object(object)
    }
}
