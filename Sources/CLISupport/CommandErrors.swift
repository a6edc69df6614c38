/// The user's command line is wrong: exit 64 with one line naming the problem and one hint line
/// naming the help of the command that found it (`See 'entitlementctl check --help'.`).
package struct UsageError: Error, Sendable, CustomStringConvertible {
    /// Lower-case, no full stop: `unknown option '--bogus'; did you mean '--count'?`.
    package var message: String
    /// The full name of the command whose help the hint names; `nil` until the command that
    /// parsed or ran it fills it in.
    package var command: String?

    package init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    package var description: String { message }

    /// This error attributed to `command`, unless a more specific command already claimed it.
    package func attributed(to command: String) -> UsageError {
        UsageError(message, command: self.command ?? command)
    }
}

/// A failure with a contract exit code and one line for stderr, e.g.
/// `ToolError(.dataError, "events.jsonl:3: transaction: missing transactionId")`. A wrong
/// command line (exit 64) is a ``UsageError`` instead, so every exit-64 message has its shape.
package struct ToolError: Error, Sendable, CustomStringConvertible {
    package var code: ExitCode
    package var message: String
    package init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
    package var description: String { message }
}

/// Not an error: print `message` on stdout and exit 0 (help, version).
package struct CleanExit: Error, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
}
