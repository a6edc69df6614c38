import CLISupport
import SystemShims

/// Why a broker operation failed. Each description is one line naming the file and the problem;
/// ``exitCode`` maps it onto the contract's codes.
public enum BrokerError: Error, Sendable, CustomStringConvertible {
    /// Another daemon holds the container (75).
    case busy(String)
    /// Input refused: malformed events, wrong bundle or environment, bad catalog (65).
    case badInput(String)
    /// A service is missing: no daemon, no snapshot (69).
    case unavailable(String)
    /// A system call failed on `path`, with the `errno` it reported (75: disk full and the like
    /// are temporary; 77 when permission is denied, see `ExitCode.init(failedCall:)`).
    case io(path: String, operation: String, errno: Errno)
    /// Waiting ran out of time (75).
    case timedOut(String)
    /// The shared defaults store refused or failed a write (75).
    case store(String)
    /// The running daemon's lock file was removed or replaced, so it no longer excludes a second
    /// daemon; the daemon stops (75) and a supervisor's restart takes the container afresh.
    case lockLost(String)

    public var description: String {
        switch self {
        case .busy(let m), .badInput(let m), .unavailable(let m), .timedOut(let m), .store(let m), .lockLost(let m): m
        case .io(let path, let operation, let errno): "\(path): \(operation) failed: \(errno)"
        }
    }

    /// The contract's exit code for this error.
    public var exitCode: Int32 {
        switch self {
        case .badInput: 65
        case .unavailable: 69
        case .io(_, _, let errno): ExitCode(failedCall: errno).rawValue
        case .busy, .timedOut, .store, .lockLost: 75
        }
    }
}
