import SystemShims

/// A POSIX signal a service reacts to.
public struct UnixSignal: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// SIGTERM: stop gracefully.
    public static let terminate = UnixSignal(rawValue: SignalNumber.terminate.rawValue)
    /// SIGINT: stop gracefully (Ctrl-C).
    public static let interrupt = UnixSignal(rawValue: SignalNumber.interrupt.rawValue)
    /// SIGHUP: reload configuration (a daemon), or the terminal gone (a command-line tool).
    public static let hangup = UnixSignal(rawValue: SignalNumber.hangup.rawValue)
    /// SIGQUIT: quit (Ctrl-\\).
    public static let quit = UnixSignal(rawValue: SignalNumber.quit.rawValue)

    /// The symbolic name (`SIGTERM`) of the signals above, `signal N` for most others.
    public var description: String { SignalNumber(rawValue: rawValue).description }
}
