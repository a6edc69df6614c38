#if canImport(Glibc)
import Glibc
#else
#error("Unsupported Platform")
#endif

/// Who this process is, for ownership checks.
package enum ProcessIdentity {
    /// The effective user ID (`geteuid(2)`): the owner of files this process creates.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }
    /// The process ID (`getpid(2)`).
    package static var processID: Int32 { getpid() }
}
