import Glibc

/// A file descriptor: a typed, copyable handle over the raw `CInt`.
///
/// Like swift-system's `FileDescriptor`, this value does **not** own the descriptor: copies share
/// it, and the code that opened it must call ``close()`` exactly once, most simply through
/// ``closeAfter(_:)``. Every blocking call retries `EINTR`; `close` does not.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    package let rawValue: CInt

    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// Opens `path` (`open(2)`). Relative paths are resolved against the working directory.
    ///
    /// - Parameters:
    ///   - permissions: the mode for a file that `.create` creates (then masked by the umask;
    ///     call ``changeMode(_:)`` to set it exactly).
    /// - Returns: a new descriptor the caller must close.
    package static func open(
        _ path: String, _ mode: AccessMode, options: OpenOptions = [.closeOnExec],
        permissions: UInt32 = 0o600, retryOnInterrupt: Bool = true
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue
        let fd = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            Glibc.open(path, flags, mode_t(permissions))
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens `name` relative to the directory descriptor `directory` (`openat(2)`), so that the
    /// directory cannot be swapped between a check and the open.
    ///
    /// - Returns: a new descriptor the caller must close.
    package static func open(
        _ name: String, relativeTo directory: FileDescriptor, _ mode: AccessMode,
        options: OpenOptions = [.closeOnExec], permissions: UInt32 = 0o600, retryOnInterrupt: Bool = true
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue
        let fd = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            Glibc.openat(directory.rawValue, name, flags, mode_t(permissions))
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Reads at most `count` bytes (`read(2)`); an empty array means end of file.
    package func read(upTo count: Int, retryOnInterrupt: Bool = true) throws(Errno) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) }
        }
        buffer.removeSubrange(got...)
        return buffer
    }

    /// Writes some of `bytes` (`write(2)`) and returns how many were written; see ``writeAll(_:)``.
    package func write(_ bytes: some Collection<UInt8>, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        let array = Array(bytes)
        return try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            array.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress, $0.count) }
        }
    }

    /// Flushes the file's data and metadata to stable storage (`fsync(2)`).
    package func fsync() throws(Errno) {
        _ = try valueOrErrno { Glibc.fsync(rawValue) }
    }

    /// The status of the open file (`fstat(2)`).
    package func fstat() throws(Errno) -> FileStatus {
        var buffer = stat()
        _ = try valueOrErrno { Glibc.fstat(rawValue, &buffer) }
        return FileStatus(buffer)
    }

    /// The status of `name` in the directory this descriptor refers to, without following a
    /// symbolic link (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`): one lookup of one name, no path
    /// walk from the root.
    package func status(ofEntry name: String) throws(Errno) -> FileStatus {
        var buffer = stat()
        _ = try valueOrErrno { Glibc.fstatat(rawValue, name, &buffer, AT_SYMLINK_NOFOLLOW) }
        return FileStatus(buffer)
    }

    /// Sets the permission bits exactly, ignoring the umask (`fchmod(2)`).
    package func changeMode(_ permissions: UInt32) throws(Errno) {
        _ = try valueOrErrno { Glibc.fchmod(rawValue, mode_t(permissions)) }
    }

    /// Closes the descriptor (`close(2)`). Never retried: after `EINTR` the descriptor is already
    /// gone on Linux. Do not use this value (or any copy) afterwards.
    package func close() throws(Errno) {
        _ = try valueOrErrno(retryOnInterrupt: false) { Glibc.close(rawValue) }
    }
}
