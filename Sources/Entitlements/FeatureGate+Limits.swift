#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Count limits (collections, groups, cards): how many items a user may
/// have, how many are left, and whether adding some would go past the limit.
///
/// Every answer follows ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:adding:)``: an
/// active entitlement (read at the snapshot's effective now) means no limit, no snapshot means
/// free user, and an unknown feature allows nothing.
extension FeatureGate {
    /// The most items the user may have now.
    ///
    /// - Returns: `nil` when unlimited (the entitlement is active, or the feature is free for
    ///   everyone); the free allowance for a free user; 0 for a paid-only feature without an
    ///   allowance and for a feature the catalog does not know.
    public func limit(_ feature: String, snapshot: EntitlementSnapshot?, wallClock: Date) -> Int? {
        guard let rule = rules[feature] else { return 0 }
        return rule.itemLimit(rule.standing(in: snapshot, wallClock: wallClock))
    }

    /// How many more items fit: `nil` when unlimited, otherwise `max(0, limit - currentCount)`.
    ///
    /// - Parameters:
    ///   - feature: the feature's name in the catalog.
    ///   - snapshot: the last good snapshot, or `nil` (a free user).
    ///   - wallClock: the reader's clock (evaluated no earlier than the snapshot's `issuedAt`).
    ///   - currentCount: how many items the user already has (a negative count is a
    ///     caller's bug and counts as none, so nothing here can overflow).
    public func remaining(_ feature: String, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int) -> Int? {
        limit(feature, snapshot: snapshot, wallClock: wallClock).map { max(0, $0 - max(0, currentCount)) }
    }

    /// Whether adding `adding` items to the user's `currentCount` would go past the limit
    /// (a `wouldExceedLimit` check is `adding: 1`).
    public func wouldExceed(
        _ feature: String, adding: Int = 1, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int
    ) -> Bool {
        remaining(feature, snapshot: snapshot, wallClock: wallClock, currentCount: currentCount).map { adding > $0 } ?? false
    }

    /// Throws when adding `adding` items would go past the limit; returns quietly otherwise.
    ///
    /// - Throws: ``FeatureLimitError`` with the current count, the limit, what remains and the
    ///   paywall (reason ``PaywallReason/limitReached`` for a free allowance used up, otherwise
    ///   the reason ``check(_:snapshot:wallClock:currentCount:daysAgo:adding:)`` gives).
    public func ensureCanAdd(
        _ feature: String, adding: Int = 1, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int
    ) throws(FeatureLimitError) {
        guard let limit = limit(feature, snapshot: snapshot, wallClock: wallClock) else { return }
        let remaining = max(0, limit - max(0, currentCount))
        guard adding > remaining else { return }
        // What `check` shows when no count is given: the free allowance used up, or why the
        // feature is locked. A limit means the user does not hold the feature, so that `check`
        // locks.
        let paywall = check(feature, snapshot: snapshot, wallClock: wallClock).paywall
            ?? Paywall(feature: feature, reason: .limitReached, copy: rules[feature]?.paywall ?? Self.fallbackCopy)
        throw FeatureLimitError(
            feature: feature, current: currentCount, limit: limit, remaining: remaining, adding: adding, paywall: paywall)
    }
}
