/// How a child process ended, as `waitpid(2)` reports it.
package enum TerminationStatus: Hashable, Sendable, CustomStringConvertible {
    /// The process called `exit` with this code (0 to 255).
    case exited(Int32)
    /// A signal ended the process.
    case signalled(SignalNumber)

    /// Decodes a raw `waitpid` status of a process that has ended (`WIFEXITED`/`WTERMSIG`).
    package init(waitStatus raw: CInt) {
        let signal = raw & 0x7f
        self = signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(SignalNumber(rawValue: signal))
    }

    /// One number, as a shell reports it in `$?`: the exit code, or 128 + the signal's number.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal.rawValue
        }
    }

    package var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signalled(let signal): "killed by \(signal)"
        }
    }
}
