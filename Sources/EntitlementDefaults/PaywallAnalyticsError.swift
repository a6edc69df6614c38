import SystemShims

/// Why a paywall analytics record could not be appended or read; one line naming the file.
public struct PaywallAnalyticsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The analytics file (or its directory) involved.
    public var path: String
    /// What went wrong, e.g. `open: Permission denied`.
    public var problem: String

    /// The failed system call's error, when one failed (`EACCES` is not worth retrying).
    public var errno: Errno?

    /// An error about `path`.
    public init(path: String, problem: String, errno: Errno? = nil) {
        self.path = path
        self.problem = problem
        self.errno = errno
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }
}
