#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every feature of a ``FeatureGate`` resolved against one snapshot: per feature, whether it is
/// free, until which instant its entitlement unlocks it, and its free allowances. Build it once
/// per snapshot with ``FeatureGate/prepared(for:)``; a check is then an array index and a Date
/// comparison (with a ``FeatureHandle``) and never copies a String.
///
/// Answers exactly what ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:)``'s
/// `isUnlocked` answers for the same snapshot, feature, clock, count and days: evaluation at the
/// snapshot's effective now (`max(wallClock, issuedAt)`, so winding the clock back never extends
/// access; a reader with a boot clock passes ``EntitlementSnapshot/effectiveNow(wallClock:boot:)``
/// as the clock, which floors it further), locked at `expiresAt` itself, locked for unknown features and without a snapshot
/// (free allowances still apply). Use `check` when the paywall (reason and copy) is needed.
public struct FeatureAccess: Sendable {
    /// One feature, resolved.
    struct Entry: Sendable {
        /// Free for everyone, or entitled with no end.
        var alwaysUnlocked: Bool
        /// Entitled while the effective now is before this instant; `nil` when not entitled.
        var entitledBefore: Date?
        var freeCount: Int?
        var freeDays: Int?
    }

    /// The generation of the snapshot this was prepared for; `nil` when prepared without one.
    public let generation: Int64?
    /// The snapshot's issue time: the floor of the effective now (`distantPast` without a snapshot,
    /// where it is never read).
    let issuedAt: Date
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

    private func isUnlocked(position: Int, at wallClock: Date, currentCount: Int?, daysAgo: Int?) -> Bool {
        let entry = entries[position]
        if entry.alwaysUnlocked { return true }
        // The same expression as `EntitlementStatus.isActive(at: snapshot.effectiveNow(wallClock:))`.
        if let end = entry.entitledBefore, max(wallClock, issuedAt) < end { return true }
        if let limit = entry.freeCount, let currentCount, currentCount < limit { return true }
        if let window = entry.freeDays, let daysAgo { return daysAgo <= window }
        return false
    }
}

extension FeatureGate {
    /// Resolves every feature against `snapshot` once, for cheap repeated checks.
    ///
    /// - Parameter snapshot: the last good snapshot, or `nil` when none could be read (every paid
    ///   feature locked except through its free allowance).
    /// - Returns: a value that answers like ``check(_:snapshot:wallClock:currentCount:daysAgo:)``;
    ///   prepare again when the snapshot changes (not when the clock moves: expiry is in the table).
    public func prepared(for snapshot: EntitlementSnapshot?) -> FeatureAccess {
        let sortedRules = rules.sorted { $0.key < $1.key }
        let names = sortedRules.map(\.key)
        var entries: [FeatureAccess.Entry] = []
        entries.reserveCapacity(names.count)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(names.count)
        for (position, (name, rule)) in sortedRules.enumerated() {
            positions[name] = position
            var entry = FeatureAccess.Entry(alwaysUnlocked: false, entitledBefore: nil, freeCount: rule.freeCount, freeDays: rule.freeDays)
            if let entitlement = rule.entitlement {
                if let snapshot {
                    let status = snapshot.status(of: entitlement)
                    if status.active {
                        if let end = status.expiresAt { entry.entitledBefore = end } else { entry.alwaysUnlocked = true }
                    }
                }
            } else {
                entry.alwaysUnlocked = true
            }
            entries.append(entry)
        }
        return FeatureAccess(
            generation: snapshot?.generation, issuedAt: snapshot?.issuedAt ?? .distantPast, entries: entries, positions: positions,
            layout: Self.layoutFingerprint(ofSortedNames: names))
    }
}
