/// The user's command line is wrong: printed with the usage line, exit 64.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
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
