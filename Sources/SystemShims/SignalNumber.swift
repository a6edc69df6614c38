import Glibc

/// A POSIX signal number, with Swift names for the signals this package sends, handles or
/// ignores (`SignalNumber.terminate` is `SIGTERM`).
///
/// `description` is the symbolic name when this type knows it (`SIGTERM`), else `signal 10`.
package struct SignalNumber: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: CInt

    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// `SIGHUP`: a service reloads its configuration.
    package static let hangup = SignalNumber(rawValue: SIGHUP)
    /// `SIGINT`: stop gracefully (Ctrl-C).
    package static let interrupt = SignalNumber(rawValue: SIGINT)
    /// `SIGKILL`: ends the process at once; it cannot be caught, blocked or ignored.
    package static let kill = SignalNumber(rawValue: SIGKILL)
    /// `SIGQUIT`: quit from the terminal (Ctrl-\), by default with a core dump.
    package static let quit = SignalNumber(rawValue: SIGQUIT)
    /// `SIGPIPE`: a write to a pipe or socket whose reading end is closed.
    package static let brokenPipe = SignalNumber(rawValue: SIGPIPE)
    /// `SIGTERM`: stop gracefully.
    package static let terminate = SignalNumber(rawValue: SIGTERM)
    /// `SIGXFSZ`: a write past the file-size limit (`ulimit -f`, `RLIMIT_FSIZE`).
    package static let fileSizeLimitExceeded = SignalNumber(rawValue: SIGXFSZ)

    /// The symbolic name of the signals above (`SIGTERM`), or `nil`.
    package var name: String? { Self.names.first { $0.signal == self }?.name }

    private static let names: [(signal: SignalNumber, name: String)] = [
        (.hangup, "SIGHUP"), (.interrupt, "SIGINT"), (.quit, "SIGQUIT"), (.kill, "SIGKILL"), (.brokenPipe, "SIGPIPE"), (.terminate, "SIGTERM"),
        (.fileSizeLimitExceeded, "SIGXFSZ"),
    ]

    package var description: String { name ?? "signal \(rawValue)" }

    /// Makes the whole process ignore this signal from now on (`sigaction(2)` with `SIG_IGN`);
    /// the setting survives `exec`. Ignoring ``brokenPipe`` turns a write to a closed pipe into
    /// an ``Errno/brokenPipe`` error instead of the end of the process.
    ///
    /// Only for signals that can be ignored: ``kill`` (or a number that is no signal) is a
    /// programmer error and stops the program.
    package func ignore() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        let result = sigaction(rawValue, &action, nil)
        precondition(result == 0, "sigaction(\(self), SIG_IGN): \(Errno.current)")
    }
}
