import Entitlements
import SharedDefaults

/// How a process runs a premium toggle for its whole life, decided once at launch by
/// ``LaunchPreferences/resolve(_:defaults:catalog:wallClock:)``.
public enum LaunchMode: Sendable, Hashable, CustomStringConvertible {
    /// The user's toggle is on and its feature is unlocked: what it turns on runs.
    case on
    /// What the toggle turns on does not run in this process; the stored choice is untouched,
    /// so nothing is orphaned and it comes back on the first launch where both conditions hold.
    case off(OffReason)

    /// Why a toggle is off for a launch.
    public enum OffReason: Sendable, Hashable {
        /// The user turned the toggle off (or never turned on one that is off by default).
        case preferenceOff
        /// The user wants it but its feature is locked; the gate's reason (`notEntitled`,
        /// `expired`, `revoked`, `noSnapshot`, …).
        case premiumRequired(PaywallReason)
        /// The catalog declares no preference of that key.
        case undeclared
    }

    /// Whether the toggle is in effect in this process.
    public var isOn: Bool { self == .on }

    /// `on`, `off (turned off)`, `off (needs premium: expired)`, `off (not declared)`.
    public var description: String {
        switch self {
        case .on: "on"
        case .off(.preferenceOff): "off (turned off)"
        case .off(.premiumRequired(let reason)): "off (needs premium: \(reason.rawValue))"
        case .off(.undeclared): "off (not declared)"
        }
    }
}
