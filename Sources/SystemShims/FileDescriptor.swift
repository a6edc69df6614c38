import Glibc

/// An open file descriptor that this value owns: it is closed exactly once, by ``close()`` or,
/// failing that, when the value's lifetime ends (`deinit`, ignoring errors).
///
/// The type is `~Copyable`, so there is always one owner; pass it `borrowing` to use it and
/// `consuming` to hand it over. A descriptor that several owners must share (a directory kept
/// in a cache and used by readers) goes into a ``SharedFileDescriptor``. Every blocking call
/// retries `EINTR` unless told not to; `close` never does (on Linux the descriptor is gone even
/// when `close` reports `EINTR`).
package struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number. Use it only while this value is alive, and never close it.
    package let rawValue: CInt

    /// Takes ownership of the open descriptor `rawValue`.
    package init(adopting rawValue: CInt) { self.rawValue = rawValue }

    deinit { _ = system_close(rawValue) }

    /// Closes the descriptor (`close(2)`). Never retried.
    ///
    /// - Throws: the `errno` of `close` (`EIO`: an earlier write of this file may be lost).
    package consuming func close() throws(Errno) {
        let descriptor = rawValue
        discard self
        if system_close(descriptor) == -1 { throw Errno.current }
    }

    /// Gives up ownership without closing: the caller now owns the returned number.
    package consuming func release() -> CInt {
        let descriptor = rawValue
        discard self
        return descriptor
    }

    /// The number of standard input, output and error, for ``withUnowned(_:_:)``.
    package static let standardInput: CInt = STDIN_FILENO
    package static let standardOutput: CInt = STDOUT_FILENO
    package static let standardError: CInt = STDERR_FILENO

    /// Runs `body` with a descriptor this process has open but this code does not own
    /// (`STDIN_FILENO`); it stays open afterwards.
    package static func withUnowned<R, E: Error>(
        _ rawValue: CInt, _ body: (borrowing FileDescriptor) throws(E) -> R
    ) throws(E) -> R {
        let borrowed = FileDescriptor(adopting: rawValue)
        let result: R
        do {
            result = try body(borrowed)
        } catch {
            _ = borrowed.release()
            throw error
        }
        _ = borrowed.release()
        return result
    }

    /// Opens `path` (`open(2)`). Relative paths are resolved against the working directory.
    ///
    /// - Parameters:
    ///   - permissions: the mode for a file that `.create` creates (then masked by the umask;
    ///     call ``changeMode(_:)`` to set it exactly).
    /// - Returns: the new descriptor, owned by the caller.
    package static func open(
        _ path: String, _ mode: AccessMode, options: OpenOptions = [.closeOnExec],
        permissions: UInt32 = 0o600, retryOnInterrupt: Bool = true
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue
        let fd = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            path.withCString { system_openat(AT_FDCWD, $0, flags, mode_t(permissions)) }
        }
        return FileDescriptor(adopting: fd)
    }

    /// Opens `name` relative to the directory descriptor `directory` (`openat(2)`), so that the
    /// directory cannot be swapped between a check and the open. The name reaches the kernel
    /// through `withCString` (no copy of a native string), not converted to a new C array.
    ///
    /// - Returns: the new descriptor, owned by the caller.
    package static func open(
        _ name: String, relativeTo directory: borrowing FileDescriptor, _ mode: AccessMode,
        options: OpenOptions = [.closeOnExec], permissions: UInt32 = 0o600, retryOnInterrupt: Bool = true
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue
        let directoryDescriptor = directory.rawValue
        let fd = try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            name.withCString { system_openat(directoryDescriptor, $0, flags, mode_t(permissions)) }
        }
        return FileDescriptor(adopting: fd)
    }

    /// Reads at most `count` bytes (`read(2)`); an empty array means end of file.
    package func read(upTo count: Int, retryOnInterrupt: Bool = true) throws(Errno) -> [UInt8] {
        guard count > 0 else { return [] }
        // Straight into the array's uninitialized storage: zero-filling it first cost more than
        // the read itself for a small file read in 64 KB chunks (`readAll`).
        var failure: Errno?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            do throws(Errno) {
                initialized = try read(into: UnsafeMutableRawBufferPointer(storage), retryOnInterrupt: retryOnInterrupt)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return buffer
    }

    /// Reads at most `buffer.count` bytes into `buffer` (`read(2)`); returns how many, 0 at end
    /// of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        let descriptor = rawValue
        return try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            system_read(descriptor, buffer.baseAddress, buffer.count)
        }
    }

    /// Writes some of `bytes` (`write(2)`) and returns how many were written; see ``writeAll(_:)``.
    package func write(_ bytes: UnsafeRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        let descriptor = rawValue
        return try valueOrErrno(retryOnInterrupt: retryOnInterrupt) {
            system_write(descriptor, bytes.baseAddress, bytes.count)
        }
    }

    /// Flushes the file's data and metadata to stable storage (`fsync(2)`).
    package func fsync() throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_fsync(descriptor) }
    }

    /// Starts writing the file's dirty pages to the device and returns without waiting
    /// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`): a head start for an ``fsync()`` that
    /// another thread will make, which then finds the data written or on its way. It makes
    /// nothing durable (no metadata, no cache flush) and reports nothing: the ``fsync()`` does.
    package func startWriteback() {
        // `SYNC_FILE_RANGE_WRITE` (2), from the whole file's start (offset 0) to its end (0 bytes).
        _ = FileDescriptor.syncFileRange?(rawValue, 0, 0, 2)
    }

    /// `sync_file_range(2)`, a GNU extension Glibc's module map leaves out; looked up once.
    private static let syncFileRange = cLibraryFunction(
        named: "sync_file_range", as: (@convention(c) (CInt, Int64, Int64, CUnsignedInt) -> CInt).self)

    /// Cuts or extends the file to `length` bytes (`ftruncate(2)`).
    package func truncate(to length: Int) throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_ftruncate(descriptor, off_t(length)) }
    }

    /// Moves the file offset to `offset` bytes from the start (`lseek(2)` with `SEEK_SET`).
    package func seek(toOffset offset: Int) throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_lseek(descriptor, off_t(offset), SEEK_SET) }
    }

    /// Moves the file offset to the end of the file and returns it: the file's length
    /// (`lseek(2)` with `SEEK_END`).
    package func seekToEnd() throws(Errno) -> Int {
        let descriptor = rawValue
        return Int(try valueOrErrno { system_lseek(descriptor, 0, SEEK_END) })
    }

    /// The status of the open file (`fstat(2)`).
    package func fstat() throws(Errno) -> FileStatus {
        var buffer = stat()
        let descriptor = rawValue
        _ = try valueOrErrno { system_fstat(descriptor, &buffer) }
        return FileStatus(buffer)
    }

    /// The status of `name` in the directory this descriptor refers to, without following a
    /// symbolic link (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`): one lookup of one name, no path
    /// walk from the root. Called on every unchanged refresh, so the name is passed with
    /// `withCString` (no copy of a native string), not converted to a new C array.
    package func status(ofEntry name: String) throws(Errno) -> FileStatus {
        var buffer = stat()
        let descriptor = rawValue
        _ = try valueOrErrno { name.withCString { system_fstatat(descriptor, $0, &buffer, AT_SYMLINK_NOFOLLOW) } }
        return FileStatus(buffer)
    }

    /// Sets the permission bits exactly, ignoring the umask (`fchmod(2)`).
    package func changeMode(_ permissions: UInt32) throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_fchmod(descriptor, mode_t(permissions)) }
    }

    /// Renames `name` to `newName`, both in the directory this descriptor refers to, atomically
    /// replacing an existing `newName` (`renameat(2)`).
    package func rename(_ name: String, to newName: String) throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_renameat(descriptor, name, descriptor, newName) }
    }

    /// Removes the name `name` from the directory this descriptor refers to (`unlinkat(2)`); not
    /// for directories.
    package func removeEntry(_ name: String) throws(Errno) {
        let descriptor = rawValue
        _ = try valueOrErrno { system_unlinkat(descriptor, name, 0) }
    }
}

/// A ``FileDescriptor`` with several owners: closed when the last reference goes away. For a
/// descriptor kept in a cache and lent to readers, where no single owner can know when the last
/// use ends.
package final class SharedFileDescriptor: Sendable {
    /// The descriptor; do not close it (the object does, in `deinit`).
    package let descriptor: FileDescriptor

    /// Takes ownership of `descriptor`.
    package init(_ descriptor: consuming FileDescriptor) { self.descriptor = descriptor }
}
