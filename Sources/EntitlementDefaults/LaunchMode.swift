import EntitlementModel
import SharedDefaults

/// How a process runs for its whole life, decided once at launch by
/// ``LaunchPreferences/resolve(defaults:gate:wallClock:)`` (the premium-only sync mode).
public enum LaunchMode: Sendable, Hashable, CustomStringConvertible {
    /// The user wants sync and premium is active: sync runs.
    case syncOn
    /// Data stays local only; the stored preference is untouched, so nothing is orphaned and sync
    /// comes back on the first launch where both conditions hold again.
    case localOnly(LocalOnlyReason)

    /// Why a launch runs local only.
    public enum LocalOnlyReason: Sendable, Hashable {
        /// The user turned the sync toggle off.
        case preferenceOff
        /// The user wants sync but premium is not active; the gate's reason (`notEntitled`,
        /// `expired`, `revoked`, `noSnapshot`, `unknownFeature`).
        case premiumRequired(PaywallReason)
    }

    /// Whether sync runs in this process.
    public var syncActive: Bool { self == .syncOn }

    /// `sync on`, `local only (sync turned off)`, `local only (sync needs premium: expired)`.
    public var description: String {
        switch self {
        case .syncOn: "sync on"
        case .localOnly(.preferenceOff): "local only (sync turned off)"
        case .localOnly(.premiumRequired(let reason)): "local only (sync needs premium: \(reason.rawValue))"
        }
    }
}
