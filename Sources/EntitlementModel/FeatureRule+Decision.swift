#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a snapshot says about one feature's entitlement, resolved before the clock is read:
/// the input of the gate's rule that ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:adding:)``
/// computes per call.
enum FeatureHolding: Sendable, Hashable {
    /// The feature is free for everyone.
    case free
    /// No snapshot could be read.
    case noSnapshot
    /// The snapshot's status of the feature's entitlement: when access is in force, its state,
    /// and whether a revocation was the family organiser's.
    case entitlement(EntitlementStatus.AccessPeriod, EntitlementState, familyRevoked: Bool)

    /// Whether the user holds the feature at `instant` (the snapshot's effective now).
    func standing(at instant: Date) -> FeatureStanding {
        switch self {
        case .free: return .holds
        case .noSnapshot: return .noSnapshot
        case .entitlement(let period, let state, let familyRevoked):
            if period.contains(instant) { return .holds }
            return familyRevoked ? .familyRevoked : .lapsed(state)
        }
    }
}

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

/// The gate's answer before the paywall copy is attached.
enum FeatureVerdict: Sendable, Hashable {
    case unlocked(remaining: Int?)
    case locked(PaywallReason)

    var isUnlocked: Bool { if case .unlocked = self { true } else { false } }
}

extension FeatureRule {
    /// The feature's entitlement in `snapshot` (`nil`: none could be read).
    func holding(in snapshot: EntitlementSnapshot?) -> FeatureHolding {
        guard let entitlement else { return .free }
        guard let snapshot else { return .noSnapshot }
        // Without making the product id's string: a check reads only when access is in force.
        let (period, state, revocation) = snapshot.access(of: entitlement)
        return .entitlement(period, state, familyRevoked: revocation == .familyRevoked)
    }

    /// The rule's free allowances: what the gate's rule reads of it.
    var allowances: Allowances { Allowances(freeCount: freeCount, freeDays: freeDays) }

    /// A feature's free allowances (see ``FeatureRule/freeCount`` and ``FeatureRule/freeDays``),
    /// and the gate's one rule over them.
    struct Allowances: Sendable, Hashable {
        var freeCount: Int?
        var freeDays: Int?

        /// The most items a user of `standing` may have: `nil` when unlimited (the user holds the
        /// feature), else the free allowance (0 without one).
        func itemLimit(_ standing: FeatureStanding) -> Int? {
            standing == .holds ? nil : freeCount ?? 0
        }

        /// The gate's one rule. A user who holds the feature may use it; otherwise a free count
        /// allowance unlocks while `adding` more items fit (`currentCount + adding <= freeCount`,
        /// one by default; a negative count or addition, which is a caller's bug, counting as
        /// none), a free time window unlocks items up to
        /// `freeDays` back and locks older ones with ``PaywallReason/limitReached``, and anything
        /// else is locked with the reason the standing gives.
        func verdict(_ standing: FeatureStanding, currentCount: Int?, daysAgo: Int?, adding: Int = 1) -> FeatureVerdict {
            guard let limit = itemLimit(standing) else { return .unlocked(remaining: nil) }
            if let count = currentCount.map({ max(0, $0) }), count < limit, max(0, adding) <= limit - count {
                return .unlocked(remaining: limit - count)
            }
            if let window = freeDays, let daysAgo {
                if daysAgo <= window { return .unlocked(remaining: nil) }
                return .locked(standing == .noSnapshot ? .noSnapshot : .limitReached)
            }
            switch standing {
            case .noSnapshot: return .locked(.noSnapshot)
            case .lapsed where freeCount != nil, .familyRevoked where freeCount != nil: return .locked(.limitReached)
            case .familyRevoked: return .locked(.familyRevoked)
            case .lapsed(.notPurchased): return .locked(.notEntitled)
            case .lapsed(.revoked): return .locked(.revoked)
            case .lapsed, .holds: return .locked(.expired)
            }
        }
    }
}
