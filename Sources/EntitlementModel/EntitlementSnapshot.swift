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

    public var schemaVersion: Int
    public var generation: Int64
    public var issuedAt: Date
    /// The earliest instant after `issuedAt` at which any entitlement changes, if one is known.
    public var nextTransition: Date?
    public var entitlements: [String: EntitlementStatus]

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
