#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether a user holds a feature at an instant, and if not why.
enum FeatureStanding: Sendable, Hashable {
    /// Free, or its entitlement is in force.
    case holds
    case noSnapshot
    /// The entitlement is not in force; its state says why (never bought, expired, revoked…).
    case lapsed(EntitlementState)
    /// Revoked because the family organiser stopped sharing.
    case familyRevoked
}

extension FeatureRule {
    /// Whether the user holds the feature at `snapshot`'s effective now for `wallClock`
    /// (`snapshot` `nil`: none could be read).
    func standing(in snapshot: EntitlementSnapshot?, wallClock: Date) -> FeatureStanding {
        guard let entitlement else { return .holds }
        guard let snapshot else { return .noSnapshot }
        let status = snapshot.status(of: entitlement)
        if status.isActive(at: snapshot.effectiveNow(wallClock: wallClock)) { return .holds }
        return status.revocation == .familyRevoked ? .familyRevoked : .lapsed(status.state)
    }

    /// The most items a user of `standing` may have: `nil` when unlimited (the user holds the
    /// feature), else the free allowance (0 without one).
    func itemLimit(_ standing: FeatureStanding) -> Int? {
        standing == .holds ? nil : freeCount ?? 0
    }

    /// The gate's one rule. A user who holds the feature may use it; otherwise a free count
    /// allowance unlocks while `adding` more items fit (`currentCount + adding <= freeCount`,
    /// one by default; a negative count or addition, which is a caller's bug, counting as
    /// none), a free time window unlocks items up to `freeDays` back and locks older ones with
    /// ``PaywallReason/limitReached``, and anything else is locked with the reason the standing
    /// gives, showing `paywall` of that reason.
    func decision(
        _ standing: FeatureStanding, currentCount: Int?, daysAgo: Int?, adding: Int, paywall: (PaywallReason) -> Paywall
    ) -> GateDecision {
        guard let limit = itemLimit(standing) else { return .unlocked(remaining: nil) }
        if let count = currentCount.map({ max(0, $0) }), count < limit, max(0, adding) <= limit - count {
            return .unlocked(remaining: limit - count)
        }
        if let window = freeDays, let daysAgo {
            if daysAgo <= window { return .unlocked(remaining: nil) }
            return .locked(paywall(standing == .noSnapshot ? .noSnapshot : .limitReached))
        }
        switch standing {
        case .noSnapshot: return .locked(paywall(.noSnapshot))
        case .lapsed where freeCount != nil, .familyRevoked where freeCount != nil: return .locked(paywall(.limitReached))
        case .familyRevoked: return .locked(paywall(.familyRevoked))
        case .lapsed(.notPurchased): return .locked(paywall(.notEntitled))
        case .lapsed(.revoked): return .locked(paywall(.revoked))
        case .lapsed, .holds: return .locked(paywall(.expired))
        }
    }
}
