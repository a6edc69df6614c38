import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WidgetKit-shaped timeline provider for one gated feature.
///
/// Pure: the caller passes the snapshot it read (`nil` when none could be read, which fails
/// closed), and the instant to evaluate at. Nothing here reads a file or the clock.
///
/// ## Timeline rules
/// - One entry dated `now`, evaluated through the gate at
///   `EntitlementSnapshot.effectiveNow(wallClock:)` (so a clock wound back before `issuedAt`
///   evaluates at `issuedAt` and cannot bring access back). A caller with a boot clock passes
///   `EntitlementSnapshot.effectiveNow(wallClock:boot:)` as `now`, so that on the boot of
///   issue a clock wound back after `issuedAt` cannot either (`widget-renderer` does).
/// - One more entry at every future transition inside ``horizon``: the `expiresAt` of the
///   entitlement that unlocks the feature (when it is active), the snapshot's `nextTransition`,
///   and the end of `validUntil` when the caller passes one. Each entry is evaluated by the gate
///   *at its own date*, so the entry at expiry is locked and the widget locks at the right second
///   with no process running.
/// - Policy: `.after(t)` where `t` is the earliest pending transition (even one beyond the
///   horizon, so a yearly subscription still gets a reload at its expiry); `.never` when nothing is
///   pending (lifetime access, locked with nothing to wait for, or no snapshot at all: a new
///   snapshot arrives through the file watcher, which asks for a reload). `.atEnd` is never
///   produced: because every transition already has its own entry, `.after(first transition)`
///   reloads at least as early as `.atEnd` would and equals it when there is one future entry.
/// - Staleness: an entry is stale when its date is after the snapshot's `nextTransition` (the
///   daemon publishes at every transition, so by then a newer snapshot should exist). Stale entries
///   still lock at the snapshot's own expiry dates; they are shown "as of" `issuedAt`.
public struct EntitlementTimelineProvider: Sendable {
    /// The catalog's feature gate (`Catalog/featureGate`).
    public var gate: FeatureGate
    /// The feature the widget needs (the catalog's `widgets` by default).
    public var feature: String
    /// What an unlocked entry shows.
    public var content: WidgetContent
    /// How far ahead entries are precomputed. Default 7 days.
    public var horizon: TimeInterval

    /// A provider for `feature` of `gate`'s catalog, showing `content` when unlocked and
    /// precomputing `horizon` seconds of entries.
    public init(
        gate: FeatureGate, feature: String = "widgets", content: WidgetContent = .sample,
        horizon: TimeInterval = 7 * 86_400
    ) {
        self.gate = gate
        self.feature = feature
        self.content = content
        self.horizon = horizon
    }

    /// The redacted entry WidgetKit shows before anything is known. Its date is
    /// `Date.distantPast`, since this call gets no clock; it is never selected against a real one.
    public func placeholder(in context: TimelineProviderContext) -> EntitlementEntry {
        EntitlementEntry(date: .distantPast, state: .placeholder)
    }

    /// The single entry for a transient display. In a preview context (the widget gallery) that is
    /// sample, unlocked content whatever the snapshot says; otherwise the timeline's entry for `now`.
    public func snapshot(
        for snapshot: EntitlementSnapshot?, in context: TimelineProviderContext, now: Date
    ) -> EntitlementEntry {
        if context.isPreview { return EntitlementEntry(date: now, state: .unlocked(content)) }
        return entry(at: now, snapshot: snapshot, validUntil: nil) { gate.check(feature, snapshot: $0, wallClock: $1) }
    }

    /// The timeline from `now` (see the type's documentation for the rules).
    ///
    /// - Parameters:
    ///   - snapshot: the last good snapshot, or `nil` when none could be read (every entry locked).
    ///   - context: the family the entries are for.
    ///   - now: the date of the first entry; evaluation never goes earlier than the snapshot's `issuedAt`.
    ///   - validUntil: an instant after which the caller no longer trusts the snapshot
    ///     (the watch's companion offline limit). From then on entries are computed as if there were no
    ///     snapshot: locked with reason `noSnapshot`. `nil` means the snapshot is trusted until its
    ///     own dates say otherwise.
    public func timeline(
        for snapshot: EntitlementSnapshot?, in context: TimelineProviderContext, now: Date, validUntil: Date? = nil
    ) -> Timeline {
        // The feature's rule is looked up once for every entry; an unknown feature gets the
        // gate's own answer for it. The closures capture the two fields they read, not a copy of
        // the whole provider.
        guard let rule = gate.rules[feature] else {
            return timeline(for: snapshot, entitlement: nil, now: now, validUntil: validUntil) { [gate, feature] in
                gate.check(feature, snapshot: $0, wallClock: $1)
            }
        }
        return timeline(for: snapshot, entitlement: rule.entitlement, now: now, validUntil: validUntil) { [gate, feature] in
            gate.check(feature, rule: rule, snapshot: $0, wallClock: $1)
        }
    }

    /// ``timeline(for:in:now:validUntil:)`` with the feature's `entitlement` (`nil` for none) and
    /// `decide`, the gate's decision for a snapshot (or none) at an instant.
    private func timeline(
        for snapshot: EntitlementSnapshot?, entitlement: String?, now: Date, validUntil: Date?,
        decide: (EntitlementSnapshot?, Date) -> GateDecision
    ) -> Timeline {
        let first = entry(at: now, snapshot: snapshot, validUntil: validUntil, decide: decide)
        guard let snapshot else { return Timeline(entries: [first], policy: .never) }
        let start = snapshot.effectiveNow(wallClock: now)
        let pending = transitions(of: snapshot, entitlement: entitlement, after: start, validUntil: validUntil)
        let end = start.addingTimeInterval(horizon)
        var entries: [EntitlementEntry] = []
        entries.reserveCapacity(1 + pending.count)
        entries.append(first)
        for index in 0..<pending.count where pending[index] <= end {
            entries.append(entry(at: pending[index], snapshot: snapshot, validUntil: validUntil, decide: decide))
        }
        return Timeline(entries: entries, policy: pending.count > 0 ? .after(pending[0]) : .never)
    }

    /// Every instant after `start` at which what this provider shows may change, ascending, each
    /// once; `entitlement` is the one the feature needs (`nil` for none).
    private func transitions(of snapshot: EntitlementSnapshot, entitlement: String?, after start: Date, validUntil: Date?) -> Transitions {
        var dates = Transitions()
        if let entitlement {
            // Without making the status's product id `String`: only when access ends is read.
            let status = snapshot.activity(of: entitlement)
            if status.active, let expiresAt = status.expiresAt { dates.insert(expiresAt, after: start) }
        }
        if let next = snapshot.nextTransition { dates.insert(next, after: start) }
        if let validUntil { dates.insert(validUntil, after: start) }
        return dates
    }

    /// The at most three transition dates of one timeline, ascending and distinct, kept inline:
    /// a timeline is built on every new snapshot, and a set, a filtered copy and a sorted copy
    /// of three dates were three allocations of it.
    private struct Transitions {
        private var dates = InlineArray<3, Date>(repeating: .distantPast)
        private(set) var count = 0

        subscript(index: Int) -> Date { dates[index] }

        /// Adds `date` in order if it is after `start` and not already there.
        mutating func insert(_ date: Date, after start: Date) {
            guard date > start else { return }
            var position = 0
            while position < count, dates[position] < date { position += 1 }
            if position < count, dates[position] == date { return }
            var index = count
            while index > position {
                dates[index] = dates[index - 1]
                index -= 1
            }
            dates[position] = date
            count += 1
        }
    }

    /// The entry at `date`, `decide` giving the gate's decision for the feature.
    private func entry(
        at date: Date, snapshot: EntitlementSnapshot?, validUntil: Date?, decide: (EntitlementSnapshot?, Date) -> GateDecision
    ) -> EntitlementEntry {
        guard let snapshot else {
            return EntitlementEntry(date: date, state: state(decide(nil, date)))
        }
        let evaluated = snapshot.effectiveNow(wallClock: date)
        let trusted = validUntil.map { evaluated < $0 } ?? true
        let decision = decide(trusted ? snapshot : nil, date)
        let stale = snapshot.nextTransition.map { evaluated > $0 } ?? false
        return EntitlementEntry(
            date: date, state: state(decision), snapshotGeneration: snapshot.generation,
            asOf: snapshot.issuedAt, isStale: stale, isPastValidity: !trusted)
    }

    private func state(_ decision: GateDecision) -> EntitlementEntry.EntryState {
        switch decision {
        case .unlocked: .unlocked(content)
        case .locked(let paywall): .locked(paywall)
        }
    }
}
