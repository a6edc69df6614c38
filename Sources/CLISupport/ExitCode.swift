import SystemShims

/// A process exit status, with the codes the public contract names (docs/contract.md, "Exit codes").
package struct ExitCode: Error, RawRepresentable, Hashable, Sendable {
    package var rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let success = ExitCode(0)
    /// `check`: the feature is locked.
    package static let locked = ExitCode(1)
    /// The command line is wrong (`EX_USAGE`).
    package static let usage = ExitCode(64)
    /// Input data is malformed or refused (`EX_DATAERR`).
    package static let dataError = ExitCode(65)
    /// A service the command needs is not there (`EX_UNAVAILABLE`).
    package static let unavailable = ExitCode(69)
    /// Busy or temporarily failing; trying again later may work (`EX_TEMPFAIL`).
    package static let temporaryFailure = ExitCode(75)
    /// Permission denied; trying again will not help until someone changes the permissions
    /// (`EX_NOPERM`).
    package static let permissionDenied = ExitCode(77)

    /// The contract's code for a system call that failed with `errno`, the one rule every tool
    /// follows: ``permissionDenied`` (77) for `EACCES` and `EPERM`, otherwise
    /// ``temporaryFailure`` (75: a full disk, too many open files and the like pass).
    package init(failedCall errno: Errno) {
        self = errno == .permissionDenied || errno == .notPermitted ? .permissionDenied : .temporaryFailure
    }
}
