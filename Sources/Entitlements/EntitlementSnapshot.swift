#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// The device a broker runs on, as its snapshot says (`device`): the watch's readers hold its
/// snapshot to the companion staleness bound.
public enum SnapshotDevice: String, Sendable, Hashable, CaseIterable {
    /// A phone (or a tablet): also every broker without a companion.
    case phone
    /// The watch: its broker listens for its phone (`--companion-listen`).
    case watch
}

/// What the daemon publishes into the shared file: every entitlement's status at `issuedAt`.
///
/// A snapshot carries its own future: `expiresAt` on each entitlement and `nextTransition`, so a
/// reader can lock at the right second even when no process publishes again. `generation` is
/// strictly increasing across the publishes of one history (``historyID``).
public struct EntitlementSnapshot: Sendable, Hashable {
    /// The schema this build writes, and the only one it reads.
    public static let currentSchemaVersion = 1

    /// The layout of the snapshot; a reader refuses any version but ``currentSchemaVersion``.
    public var schemaVersion: Int
    /// Strictly increasing with every publish of one history (``historyID``); a reader refuses a
    /// snapshot of the history it holds whose generation is lower than one it already accepted
    /// (a replayed old file).
    public var generation: Int64
    /// The history the snapshot belongs to: a random id the daemon draws when it starts on a
    /// container with no history (a fresh or recreated one) and writes into every snapshot, so
    /// that a reader tells a new history, whose generations start again at 1, from a replayed
    /// old file of the one it holds. `nil` in snapshots written before histories were named.
    public var historyID: String?
    /// When the daemon computed the snapshot. Readers never evaluate earlier than this (see
    /// ``effectiveNow(wallClock:)``).
    public var issuedAt: Date
    /// The earliest instant after `issuedAt` at which any entitlement changes, if one is known.
    public var nextTransition: Date?
    /// Every entitlement of the catalog by its id (for example `plus`), as it stood at `issuedAt`,
    /// in ascending id order, each id once (see ``EntitlementTable`` for what a lookup costs).
    public var entitlements: EntitlementTable
    /// The boot clock when the snapshot was issued (it was at least `issuedAt` then), or `nil`
    /// when the issuer could not read one or wrote an older snapshot without it.
    public var issuedIn: BootInstant?
    /// The sorted product ids of journaled purchases that no entitlement lists (empty when none,
    /// and in a snapshot written without the field): what a developer checks when a user who
    /// paid is locked.
    public var unmappedProducts: [String]
    /// The sorted subscription groups whose introductory offer the user may no longer take, as
    /// the daemon decided from every journaled transaction (expired, revoked and upgraded ones
    /// included) under the catalog's `introductoryOffer` policy; empty when none, and in a
    /// snapshot written without the field. What ``FeatureGate/introOfferEligible(group:snapshot:)``
    /// reads: the entitlements alone name only each one's deciding product, so a subscription
    /// since replaced by a lifetime purchase would not show.
    public var introOfferIneligibleGroups: [String]
    /// The last authenticated exchange with the companion (heartbeats included), or `nil`
    /// before the first one. On the watch it bounds how long the snapshot is trusted
    /// (``isTrusted(at:offlineLimit:readerIsWatch:)``).
    public var companionSyncedAt: Date?
    /// The device whose broker published the snapshot: ``SnapshotDevice/watch`` for the watch's
    /// (the daemon that listens for its companion), ``SnapshotDevice/phone`` otherwise and in
    /// snapshots written without the field.
    public var device: SnapshotDevice = .phone

    /// A snapshot as the engine makes it; readers get theirs from the shared file instead.
    public init(
        schemaVersion: Int = EntitlementSnapshot.currentSchemaVersion, generation: Int64, issuedAt: Date,
        nextTransition: Date?, entitlements: [String: EntitlementStatus], issuedIn: BootInstant? = nil, historyID: String? = nil,
        unmappedProducts: [String] = [], introOfferIneligibleGroups: [String] = []
    ) {
        self.init(
            schemaVersion: schemaVersion, generation: generation, issuedAt: issuedAt, nextTransition: nextTransition,
            entitlements: EntitlementTable(entitlements), issuedIn: issuedIn, historyID: historyID, unmappedProducts: unmappedProducts,
            introOfferIneligibleGroups: introOfferIneligibleGroups)
    }

    /// A snapshot of the statuses in `entitlements`.
    public init(
        schemaVersion: Int = EntitlementSnapshot.currentSchemaVersion, generation: Int64, issuedAt: Date,
        nextTransition: Date?, entitlements: EntitlementTable, issuedIn: BootInstant? = nil, historyID: String? = nil,
        unmappedProducts: [String] = [], introOfferIneligibleGroups: [String] = []
    ) {
        self.unmappedProducts = unmappedProducts
        self.introOfferIneligibleGroups = introOfferIneligibleGroups
        self.schemaVersion = schemaVersion
        self.generation = generation
        self.issuedAt = issuedAt
        self.nextTransition = nextTransition
        self.entitlements = entitlements
        self.issuedIn = issuedIn
        self.historyID = historyID
    }

    /// Whether `historyID` may name a history: 1 to ``maximumHistoryIDLength`` printable ASCII
    /// characters (no space), as a reader requires of a snapshot's.
    public static func isValid(historyID: String) -> Bool {
        let utf8 = historyID.utf8
        return !utf8.isEmpty && utf8.count <= maximumHistoryIDLength && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The longest history id a reader accepts, in bytes.
    public static let maximumHistoryIDLength = 64

    /// The status of `entitlement`, or ``EntitlementStatus/notPurchased`` when the snapshot does not name it.
    public func status(of entitlement: String) -> EntitlementStatus {
        entitlements[entitlement] ?? .notPurchased
    }

    /// ``status(of:)``'s `active` and `expiresAt`: what a widget timeline reads to find when
    /// access ends.
    package func activity(of entitlement: String) -> (active: Bool, expiresAt: Date?) {
        let status = status(of: entitlement)
        return (status.active, status.expiresAt)
    }

    /// The instant a reader should evaluate at: the wall clock, but never earlier than
    /// ``BootInstant/floor(issuedAt:issued:current:)``: on the boot the snapshot was issued in,
    /// `issuedAt` plus the boot time elapsed since; on another boot (or without readings)
    /// `issuedAt` itself. Winding the wall clock back therefore cannot bring access back, and
    /// on the same boot it cannot even hold the clock still.
    ///
    /// - Parameters:
    ///   - wallClock: the reader's clock, or any instant it wants to evaluate at.
    ///   - boot: the reader's boot clock now (on Linux `BootInstant.current()`), or `nil` where
    ///     there is none; then only `issuedAt` floors the result.
    public func effectiveNow(wallClock: Date, boot: BootInstant?) -> Date {
        max(wallClock, BootInstant.floor(issuedAt: issuedAt, issued: issuedIn, current: boot))
    }

    /// ``effectiveNow(wallClock:boot:)`` without a boot reading: `max(wallClock, issuedAt)`.
    /// What the pure evaluators (``FeatureGate``, the widget timeline, the watch) apply to the
    /// instant they are given; a reader that has a boot clock raises its instant with
    /// ``effectiveNow(wallClock:boot:)`` first.
    public func effectiveNow(wallClock: Date) -> Date {
        effectiveNow(wallClock: wallClock, boot: nil)
    }
}
