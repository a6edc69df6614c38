#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a feature is locked.
public enum PaywallReason: String, Sendable, Hashable, CaseIterable {
    /// The user never had the entitlement.
    case notEntitled
    /// The entitlement ended (expiry, trial end, grace end) or was revoked.
    case expired
    /// The purchase was refunded or revoked.
    case revoked
    /// The family organiser stopped sharing the purchase (`revocationType` `FAMILY_REVOKE`).
    case familyRevoked
    /// A free allowance (count or time window) is used up.
    case limitReached
    /// No valid snapshot could be read: fail closed.
    case noSnapshot
    /// The catalog does not know the feature: fail closed.
    case unknownFeature
}

/// A locked feature: the reason plus the copy and the deep link a paywall needs.
public struct Paywall: Sendable, Hashable {
    /// The feature that was asked about, as the caller spelt it.
    public var feature: String
    /// Why it is locked.
    public var reason: PaywallReason
    /// The catalog's title, message and button text for this feature's paywall, for this
    /// reason (see ``FeatureRule/copy(for:introOfferEligible:)``).
    public var copy: PaywallCopy
    /// Whether the user may take the introductory offer of a product that unlocks the feature
    /// (then ``copy`` is the `introOffer` copy for `notEntitled` and `expired`).
    public var introOfferEligible: Bool

    /// A paywall as the gate makes it.
    public init(feature: String, reason: PaywallReason, copy: PaywallCopy, introOfferEligible: Bool = false) {
        self.feature = feature
        self.reason = reason
        self.copy = copy
        self.introOfferEligible = introOfferEligible
    }

    /// Where a tap on the locked surface leads: `app://paywall?feature=<feature>&reason=<reason>`.
    public var deepLink: String { "app://paywall?feature=\(feature)&reason=\(reason.rawValue)" }
}

/// The gate's answer for one feature.
public enum GateDecision: Sendable, Hashable {
    /// Unlocked; `remaining` counts free items left when the unlock comes from a free allowance.
    case unlocked(remaining: Int?)
    /// Locked; show the paywall.
    case locked(Paywall)

    /// Whether the feature may be used.
    public var isUnlocked: Bool { if case .unlocked = self { true } else { false } }
    /// The paywall to show when locked; `nil` when unlocked.
    public var paywall: Paywall? { if case .locked(let p) = self { p } else { nil } }
}

/// The feature gate: features, the entitlements that unlock them and the free allowances.
/// Pure. ``check(_:snapshot:wallClock:currentCount:daysAgo:adding:)`` gives the full decision with its
/// paywall.
public struct FeatureGate: Sendable, Hashable {
    /// Every feature the catalog defines, by name (for example `widgets`). A name not in here is
    /// locked with ``PaywallReason/unknownFeature``.
    public var rules: [String: FeatureRule]

    /// A gate over `rules`; apps usually take ``Catalog/featureGate`` from a loaded catalog instead.
    public init(rules: [String: FeatureRule]) {
        self.rules = rules
    }

    /// Copy used when a feature is unknown or has no copy of its own.
    public static let fallbackCopy = PaywallCopy(
        title: "Upgrade required", message: "This feature is not available.", callToAction: "See plans")

    /// Decides whether `feature` is unlocked.
    ///
    /// - Parameters:
    ///   - feature: the feature's name in the catalog (`widgets`); a name the catalog does not
    ///     define is locked with ``PaywallReason/unknownFeature``.
    ///   - snapshot: the last good snapshot, or `nil` when none could be read (locks every paid feature).
    ///   - wallClock: the reader's clock; evaluation uses ``EntitlementSnapshot/effectiveNow(wallClock:)``,
    ///     so a clock set backwards before `issuedAt` never extends access. A reader with a boot
    ///     clock passes ``EntitlementSnapshot/effectiveNow(wallClock:boot:)`` instead, which also
    ///     floors at the boot time elapsed since issue (this module reads no clock).
    ///   - currentCount: for count-limited features, how many items the user already has; unlocked
    ///     for a free user while one more still fits (`currentCount < freeCount`).
    ///   - daysAgo: for time-window features (history), how many whole days back the item lies;
    ///     unlocked for a free user while `daysAgo <= freeDays`, locked with
    ///     ``PaywallReason/limitReached`` beyond. `nil` asks about the whole feature.
    ///   - adding: with `currentCount`, how many items the user wants to add: unlocked for a free
    ///     user while `currentCount + adding <= freeCount` (`check F --count N --adding K`).
    public func check(
        _ feature: String, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int? = nil, daysAgo: Int? = nil,
        adding: Int = 1
    ) -> GateDecision {
        guard let rule = rules[feature] else {
            return .locked(Paywall(feature: feature, reason: .unknownFeature, copy: Self.fallbackCopy))
        }
        return check(feature, rule: rule, snapshot: snapshot, wallClock: wallClock, currentCount: currentCount, daysAgo: daysAgo, adding: adding)
    }

    /// ``check(_:snapshot:wallClock:currentCount:daysAgo:adding:)`` of a feature this gate defines, with
    /// its rule already looked up (`rule` must be `rules[feature]`): for a caller that decides one
    /// feature at several instants (a widget timeline).
    package func check(
        _ feature: String, rule: FeatureRule, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int? = nil, daysAgo: Int? = nil,
        adding: Int = 1
    ) -> GateDecision {
        let standing = rule.standing(in: snapshot, wallClock: wallClock)
        return rule.decision(standing, currentCount: currentCount, daysAgo: daysAgo, adding: adding) { reason in
            let eligible = introOfferEligible(rule, snapshot: snapshot)
            return Paywall(feature: feature, reason: reason, copy: rule.copy(for: reason, introOfferEligible: eligible), introOfferEligible: eligible)
        }
    }
}
