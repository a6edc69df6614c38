import Glibc

/// Who this process is, for ownership checks.
package enum ProcessIdentity {
    /// The effective user ID (`geteuid(2)`): the owner of files this process creates.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }
    /// The process ID (`getpid(2)`).
    package static var processID: Int32 { getpid() }

    /// The absolute path of the running executable, symbolic links resolved (`/proc/self/exe`);
    /// `nil` when it cannot be read (no `/proc`).
    package static func ownExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
