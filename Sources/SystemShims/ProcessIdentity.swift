import Glibc
import Synchronization

/// Who this process is, for ownership checks.
package enum ProcessIdentity {
    /// The effective user ID (`geteuid(2)`): the owner of files this process creates.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }
    /// The process ID, as `getpid(2)` gives it, without a system call on every use (a publish
    /// names its temporary file with it): read once, and read again in the child of every
    /// `fork` by a `pthread_atfork` handler, so a forked child never goes by its parent's ID.
    /// (A child made by a raw `clone` system call runs no fork handlers and would; nothing that
    /// runs Swift code here is made that way: `posix_spawn` children exec at once.)
    package static var processID: Int32 {
        _ = CachedProcessID.installed
        return CachedProcessID.value.load(ordering: .relaxed)
    }

    /// The absolute path of the running executable, symbolic links resolved (`/proc/self/exe`);
    /// `nil` when it cannot be read (no `/proc`).
    package static func ownExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The storage behind ``ProcessIdentity/processID``.
private enum CachedProcessID {
    static let value = Atomic<Int32>(0)

    /// Registers the fork handler, then reads the ID: a `fork` in between runs the handler in
    /// the child, which then holds its own ID too.
    static let installed: Bool = {
        pthread_atfork(nil, nil, { CachedProcessID.value.store(getpid(), ordering: .relaxed) })
        value.store(getpid(), ordering: .relaxed)
        return true
    }()
}
