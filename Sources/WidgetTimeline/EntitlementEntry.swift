import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One timeline entry (WidgetKit's `TimelineEntry`): what the widget shows from `date` until the
/// next entry's date. Views render from the entry, never from the wall clock.
public struct EntitlementEntry: Sendable, Hashable {
    /// What the widget shows.
    public enum EntryState: Sendable, Hashable {
        /// The feature is unlocked at the entry's date.
        case unlocked(WidgetContent)
        /// The feature is locked at the entry's date; the paywall carries reason, copy and deep link.
        case locked(Paywall)
        /// Redacted bars while nothing real is known yet (WidgetKit's `placeholder(in:)`).
        case placeholder
    }

    /// The instant from which WidgetKit shows this entry.
    public var date: Date
    /// Unlocked content, a paywall, or a placeholder.
    public var state: EntryState
    /// The generation of the snapshot the entry was computed from; `nil` when there was none.
    public var snapshotGeneration: Int64?
    /// The snapshot's `issuedAt`, for "as of" display; `nil` when there was no snapshot.
    public var asOf: Date?
    /// The snapshot is past its own validity at `date`: the daemon should have published a newer
    /// one by then (see ``EntitlementTimelineProvider``). The state is still computed correctly
    /// from the snapshot's own expiry dates; a stale entry is shown "as of" ``asOf``.
    public var isStale: Bool
    /// The caller's `validUntil` (see ``EntitlementTimelineProvider/timeline(for:in:now:validUntil:)``)
    /// had passed at `date`: the snapshot was no longer trusted, so the entry is what no snapshot
    /// gives (locked, `PaywallReason.noSnapshot` for a gated feature) until a newer one arrives.
    public var isPastValidity: Bool

    /// An entry as a provider makes it.
    public init(
        date: Date, state: EntryState, snapshotGeneration: Int64? = nil, asOf: Date? = nil, isStale: Bool = false,
        isPastValidity: Bool = false
    ) {
        self.date = date
        self.state = state
        self.snapshotGeneration = snapshotGeneration
        self.asOf = asOf
        self.isStale = isStale
        self.isPastValidity = isPastValidity
    }

    /// `true` only for ``EntryState/locked(_:)``; a placeholder is neither locked nor unlocked.
    public var isLocked: Bool { if case .locked = state { true } else { false } }

    /// The paywall of a locked entry, `nil` otherwise.
    public var paywall: Paywall? { if case .locked(let paywall) = state { paywall } else { nil } }
}
