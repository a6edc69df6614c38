import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How old the watch's snapshot is, in the words its screen shows.
public enum SnapshotAge {
    /// How old the data is at `now`, for people: "just now", "data from 42 s ago", "3 min ago",
    /// "5 h ago", "2 d ago". `nil` snapshot reads "no data". A `now` before `issuedAt` counts as age 0.
    public static func description(of snapshot: EntitlementSnapshot?, now: Date) -> String {
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
