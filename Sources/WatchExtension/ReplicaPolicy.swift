import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long the watch trusts its replica without hearing from the phone.
///
/// The replica is used offline until the earlier of (a) the entitlement's own `expiresAt`, which
/// the feature gate enforces by itself, and (b) `issuedAt + maximumAge`. Past (b) the watch fails
/// closed: locked with reason `PaywallReason/noSnapshot`, exactly as if no snapshot could be
/// read, because a purchase refunded or revoked on the phone since then could not have reached it.
/// Age is measured from `issuedAt` to the snapshot's effective now, so a clock wound back never
/// makes an old replica young again.
public struct ReplicaPolicy: Sendable, Hashable {
    /// Seconds after `issuedAt` during which the replica is trusted. Default 7 days.
    public var maximumAge: TimeInterval

    /// A policy trusting a replica for `maximumAge` seconds after its `issuedAt`.
    public init(maximumAge: TimeInterval = 7 * 86_400) { self.maximumAge = maximumAge }

    /// The instant after which `snapshot` is no longer trusted.
    public func validUntil(_ snapshot: EntitlementSnapshot) -> Date {
        snapshot.issuedAt.addingTimeInterval(maximumAge)
    }

    /// Whether `snapshot` may still be used at wall-clock `now`.
    public func isUsable(_ snapshot: EntitlementSnapshot, now: Date) -> Bool {
        snapshot.effectiveNow(wallClock: now) < validUntil(snapshot)
    }

    /// How old the data is at `now`, for people: "just now", "data from 42 s ago", "3 min ago",
    /// "5 h ago", "2 d ago". `nil` snapshot reads "no data". A `now` before `issuedAt` counts as age 0.
    public static func ageDescription(of snapshot: EntitlementSnapshot?, now: Date) -> String {
        guard let snapshot else { return "no data" }
        let seconds = Int(max(0, now.timeIntervalSince(snapshot.issuedAt)).rounded(.down))
        switch seconds {
        case ..<5: return "data from just now"
        case ..<60: return "data from \(seconds) s ago"
        case ..<3600: return "data from \(seconds / 60) min ago"
        case ..<86_400: return "data from \(seconds / 3600) h ago"
        default: return "data from \(seconds / 86_400) d ago"
        }
    }
}
