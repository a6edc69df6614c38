#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every feature of a ``FeatureGate`` resolved against one snapshot: per feature, its free
/// allowances and what the snapshot says about its entitlement (`FeatureRule.holding(in:)`).
/// Build it once per snapshot with ``FeatureGate/prepared(for:)``; a check is then an array
/// index, a Date comparison and the gate's rule (`FeatureRule.Allowances.verdict(_:currentCount:daysAgo:adding:)`,
/// the one `check` applies), and never copies a String.
///
/// So it answers what ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:adding:)``'s
/// `isUnlocked` answers for the same snapshot, feature, clock, count and days: evaluation at the
/// snapshot's effective now (`max(wallClock, issuedAt)`, so winding the clock back never extends
/// access; a reader with a boot clock passes ``EntitlementSnapshot/effectiveNow(wallClock:boot:)``
/// as the clock, which floors it further), locked at `expiresAt` itself, locked for unknown
/// features and without a snapshot (free allowances still apply). Use `check` when the paywall
/// (reason and copy) is needed.
public struct FeatureAccess: Sendable {
    /// One feature, resolved: its rule's allowances and what the snapshot says about its entitlement.
    struct Entry: Sendable {
        var rule: FeatureRule.Allowances
        var holding: FeatureHolding
    }

    /// The generation of the snapshot this was prepared for; `nil` when prepared without one.
    public let generation: Int64?
    /// The floor of the effective now: ``EntitlementSnapshot/effectiveNow(wallClock:)`` of the
    /// earliest instant, so that `max(wallClock, floor)` is that method's answer (`-infinity`
    /// without a snapshot, where no entry reads the clock).
    let floor: Date
    /// By position in the gate's sorted feature names.
    let entries: [Entry]
    /// Feature name -> position in ``entries``, for checks by name.
    let positions: [String: Int]
    /// Which gate layout ``FeatureHandle``s must come from.
    let layout: UInt64

    /// Whether the feature of `handle` is unlocked at `wallClock`.
    ///
    /// - Parameters:
    ///   - handle: from ``FeatureGate/handle(_:)`` of the gate this access was prepared from;
    ///     a handle of another gate's features, or of an unknown feature, answers `false`.
    ///   - wallClock: the reader's clock; raised to the snapshot's `issuedAt`.
    ///   - currentCount: for count-limited features, how many items the user already has.
    ///   - daysAgo: for time-window features, how many whole days back the item lies.
    public func isUnlocked(_ handle: FeatureHandle, at wallClock: Date, currentCount: Int? = nil, daysAgo: Int? = nil) -> Bool {
        guard handle.layout == layout, handle.index >= 0, handle.index < entries.count else { return false }
        return isUnlocked(position: handle.index, at: wallClock, currentCount: currentCount, daysAgo: daysAgo)
    }

    /// Whether `feature` is unlocked at `wallClock` (one String hash; prefer a ``FeatureHandle``
    /// in a loop). An unknown feature is locked.
    public func isUnlocked(_ feature: String, at wallClock: Date, currentCount: Int? = nil, daysAgo: Int? = nil) -> Bool {
        guard let position = positions[feature] else { return false }
        return isUnlocked(position: position, at: wallClock, currentCount: currentCount, daysAgo: daysAgo)
    }

    /// The gate's rule (`FeatureRule.Allowances.verdict(_:currentCount:daysAgo:adding:)`) on the prepared entry.
    private func isUnlocked(position: Int, at wallClock: Date, currentCount: Int?, daysAgo: Int?) -> Bool {
        let entry = entries[position]
        let standing = entry.holding.standing(at: max(wallClock, floor))
        return entry.rule.verdict(standing, currentCount: currentCount, daysAgo: daysAgo).isUnlocked
    }
}

extension FeatureGate {
    /// Resolves every feature against `snapshot` once, for cheap repeated checks.
    ///
    /// - Parameter snapshot: the last good snapshot, or `nil` when none could be read (every paid
    ///   feature locked except through its free allowance).
    /// - Returns: a value that answers like ``check(_:snapshot:wallClock:currentCount:daysAgo:adding:)``;
    ///   prepare again when the snapshot changes (not when the clock moves: expiry is in the table).
    public func prepared(for snapshot: EntitlementSnapshot?) -> FeatureAccess {
        let sortedRules = rules.sorted { $0.key < $1.key }
        let names = sortedRules.map(\.key)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(names.count)
        for (position, name) in names.enumerated() { positions[name] = position }
        let entries = sortedRules.map { _, rule in FeatureAccess.Entry(rule: rule.allowances, holding: rule.holding(in: snapshot)) }
        return FeatureAccess(
            generation: snapshot?.generation, floor: snapshot?.effectiveNow(wallClock: Date(timeIntervalSinceReferenceDate: -.infinity)) ?? Date(timeIntervalSinceReferenceDate: -.infinity),
            entries: entries, positions: positions, layout: Self.layoutFingerprint(ofSortedNames: names))
    }
}
