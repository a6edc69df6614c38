#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// What the daemon publishes into the shared file: every entitlement's status at `issuedAt`.
///
/// A snapshot carries its own future: `expiresAt` on each entitlement and `nextTransition`, so a
/// reader can lock at the right second even when no process publishes again. `generation` is
/// strictly increasing across publishes of one container.
public struct EntitlementSnapshot: Sendable, Hashable {
    /// The schema this build writes, and the only one it reads.
    public static let currentSchemaVersion = 1

    /// The layout of the snapshot; a reader refuses any version but ``currentSchemaVersion``.
    public var schemaVersion: Int
    /// Strictly increasing with every publish into one container; a reader refuses a snapshot
    /// whose generation is lower than one it already accepted (a replayed old file).
    public var generation: Int64
    /// When the daemon computed the snapshot. Readers never evaluate earlier than this (see
    /// ``effectiveNow(wallClock:)``).
    public var issuedAt: Date
    /// The earliest instant after `issuedAt` at which any entitlement changes, if one is known.
    public var nextTransition: Date?
    /// Every entitlement of the catalog by its id (for example `plus`), as it stood at `issuedAt`.
    public var entitlements: [String: EntitlementStatus]

    /// A snapshot as the engine makes it; readers get theirs from the shared file instead.
    public init(
        schemaVersion: Int = EntitlementSnapshot.currentSchemaVersion, generation: Int64, issuedAt: Date,
        nextTransition: Date?, entitlements: [String: EntitlementStatus]
    ) {
        self.schemaVersion = schemaVersion
        self.generation = generation
        self.issuedAt = issuedAt
        self.nextTransition = nextTransition
        self.entitlements = entitlements
    }

    /// The status of `entitlement`, or ``EntitlementStatus/notPurchased`` when the snapshot does not name it.
    public func status(of entitlement: String) -> EntitlementStatus {
        entitlements[entitlement] ?? .notPurchased
    }

    /// The instant a reader should evaluate at: the wall clock, but never earlier than the
    /// snapshot's own issue time, so winding the clock back cannot bring access back.
    public func effectiveNow(wallClock: Date) -> Date {
        max(wallClock, issuedAt)
    }
}
