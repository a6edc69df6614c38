import Glibc

/// The ID of a process, for signalling it and, for a child of this process, waiting for its end.
///
/// A child's ID stays its own until the child is reaped (``waitForTermination(retryOnInterrupt:)``);
/// after that the kernel may give the number to a new process, so signal a child only while it
/// has not been reaped.
package struct ProcessID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// This process (`getpid(2)`).
    package static var current: ProcessID { ProcessID(rawValue: getpid()) }

    package var description: String { String(rawValue) }

    /// Sends `signal` to the process (`kill(2)`).
    ///
    /// - Throws: `ESRCH` when there is no such process (it has been reaped), `EPERM` when this
    ///   process may not signal it.
    package func send(_ signal: SignalNumber) throws(Errno) {
        let process = rawValue
        _ = try valueOrErrno(retryOnInterrupt: false) { Glibc.kill(process, signal.rawValue) }
    }

    /// Blocks until this child process ends and reaps it (`waitpid(2)`, no options). `EINTR`
    /// is retried unless told not to.
    ///
    /// - Throws: `ECHILD` when it is not an unreaped child of this process (already reaped, or
    ///   `SIGCHLD` is ignored so the kernel reaped it).
    package func waitForTermination(retryOnInterrupt: Bool = true) throws(Errno) -> TerminationStatus {
        let process = rawValue
        var raw: CInt = 0
        _ = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) { system_waitpid(process, &raw, 0) }
        return TerminationStatus(waitStatus: raw)
    }
}
