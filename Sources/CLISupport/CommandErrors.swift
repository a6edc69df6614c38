/// The user's command line is wrong: exit 64 with one line naming the problem and one hint line
/// naming the help of the command that found it (`See 'entitlementctl check --help'.`).
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// Lower-case, no full stop: `unknown option '--bogus'; did you mean '--count'?`.
    public var message: String
    /// The full name of the command whose help the hint names; `nil` until the command that
    /// parsed or ran it fills it in.
    public var command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }

    /// This error attributed to `command`, unless a more specific command already claimed it.
    public func attributed(to command: String) -> UsageError {
        UsageError(message, command: self.command ?? command)
    }
}

/// A failure with a contract exit code and one line for stderr, e.g.
/// `ToolError(.dataError, "events.jsonl:3: transaction: missing transactionId")`.
public struct ToolError: Error, Sendable, CustomStringConvertible {
    public var code: ExitCode
    public var message: String
    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

/// Not an error: print `message` on stdout and exit 0 (help, version).
public struct CleanExit: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
