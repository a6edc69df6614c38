import Glibc

/// An advisory `flock(2)` on a separate lock file that is never renamed or deleted.
///
/// The lock belongs to this object's open file description: two `FileLock`s on the same path
/// exclude each other even inside one process, while two threads sharing one `FileLock` do not.
/// Its descriptor closes with the object (in `deinit`), which releases the lock. The lock is **never** to be held across an `await`: it
/// blocks a thread, and a suspended task could hold it indefinitely; use it only in synchronous
/// code.
package final class FileLock: Sendable {
    package enum Kind: Sendable { case shared, exclusive }

    /// The lock file's path.
    package let path: String
    private let descriptor: FileDescriptor

    /// Opens (creating if needed, mode 0640 exactly when this process owns it) the lock file.
    /// Opened `O_WRONLY|O_CREAT|O_CLOEXEC|O_NOFOLLOW`: a symlink in its place is refused.
    package convenience init(path: String, permissions: UInt32 = 0o640) throws(Errno) {
        let fd = try FileDescriptor.open(
            path, .writeOnly, options: [.create, .closeOnExec, .noFollow], permissions: permissions)
        try self.init(adopting: fd, path: path, permissions: permissions)
    }

    /// Like ``init(path:permissions:)`` for the file `name` inside the open directory
    /// `directory` (`openat`), so the directory cannot be swapped between its check and the open.
    package convenience init(name: String, relativeTo directory: borrowing FileDescriptor, permissions: UInt32 = 0o640) throws(Errno) {
        let fd = try FileDescriptor.open(
            name, relativeTo: directory, .writeOnly, options: [.create, .closeOnExec, .noFollow], permissions: permissions)
        try self.init(adopting: fd, path: name, permissions: permissions)
    }

    /// Opens an existing lock file read-only, only to ask whether someone holds it
    /// (``tryLock(_:)``; `flock` needs no write access): nothing is created or changed, and
    /// closing it is no write to watchers of the file (`IN_CLOSE_NOWRITE`, where closing a
    /// writable open is `IN_CLOSE_WRITE`). `O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK`: a symlink
    /// is refused and a FIFO in its place does not block.
    /// - Throws: `ENOENT` when there is no lock file, or the `errno` of the open.
    package convenience init(probing path: String) throws(Errno) {
        self.init(path: path, descriptor: try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .noFollow, .nonBlocking]))
    }

    private convenience init(adopting fd: consuming FileDescriptor, path: String, permissions: UInt32) throws(Errno) {
        let status = try fd.fstat()
        if status.userID == geteuid() && status.permissions != permissions {
            try fd.changeMode(permissions)
        }
        self.init(path: path, descriptor: fd)
    }

    private init(path: String, descriptor: consuming FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Waits (blocking the thread) until the lock is held.
    package func lock(_ kind: Kind = .exclusive) throws(Errno) {
        let operation = kind == .shared ? LOCK_SH : LOCK_EX
        _ = try valueOrErrno { system_flock(descriptor.rawValue, operation) }
    }

    /// Takes the lock if it is free. Returns `false` when another holder has it (`EWOULDBLOCK`).
    package func tryLock(_ kind: Kind = .exclusive) throws(Errno) -> Bool {
        let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB
        do {
            _ = try valueOrErrno { system_flock(descriptor.rawValue, operation) }
            return true
        } catch .wouldBlock {
            return false
        }
    }

    /// `fstat` of the lock file as opened, to compare with what its path names now (a lock
    /// file removed or replaced no longer excludes anyone who opens the path afresh).
    package func status() throws(Errno) -> FileStatus { try descriptor.fstat() }

    /// Replaces the lock file's contents with `bytes` (truncate, then write from the start), for
    /// a holder that records who it is. The lock itself is unaffected.
    package func replaceContents(with bytes: [UInt8]) throws(Errno) {
        try descriptor.truncate(to: 0)
        try descriptor.seek(toOffset: 0)
        try descriptor.writeAll(bytes)
    }

    /// Releases the lock.
    package func unlock() throws(Errno) {
        _ = try valueOrErrno { system_flock(descriptor.rawValue, LOCK_UN) }
    }

    /// Holds the lock for the duration of `body` (synchronous by design) and releases it after,
    /// even when `body` throws.
    package func withLock<R, E: Error>(_ kind: Kind = .exclusive, _ body: () throws(E) -> R) throws(FileLockError<E>) -> R {
        do { try lock(kind) } catch { throw .lock(error) }
        defer { try? unlock() }
        do { return try body() } catch { throw .body(error) }
    }
}

/// A failure of ``FileLock/withLock(_:_:)``: taking the lock, or the body's own error.
package enum FileLockError<Failure: Error>: Error {
    case lock(Errno)
    case body(Failure)
}
