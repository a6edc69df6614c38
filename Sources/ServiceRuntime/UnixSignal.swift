import Glibc

/// A POSIX signal a service reacts to.
public struct UnixSignal: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// SIGTERM: stop gracefully.
    public static let terminate = UnixSignal(rawValue: SIGTERM)
    /// SIGINT: stop gracefully (Ctrl-C).
    public static let interrupt = UnixSignal(rawValue: SIGINT)
    /// SIGHUP: reload configuration.
    public static let hangup = UnixSignal(rawValue: SIGHUP)

    public var description: String {
        switch rawValue {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(rawValue)"
        }
    }
}
