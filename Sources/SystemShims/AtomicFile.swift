import Glibc
import Synchronization

/// Replacing a file's contents so that readers see the old file or the new one, never a mix.
package enum AtomicFile {
    /// Writes `bytes` to `directory/name` by rename; see ``replace(in:name:bytes:mode:durable:)``.
    /// Opens the directory (`O_DIRECTORY|O_CLOEXEC`) for this one call.
    ///
    /// - Throws: the `errno` of the first failing call.
    package static func replace(
        directory: String, name: String, bytes: [UInt8], mode: UInt32, durable: Bool
    ) throws(Errno) {
        let directoryFD = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
        try directoryFD.closeAfter { directoryFD throws(Errno) in
            let replaced = try replace(in: directoryFD, name: name, bytes: bytes, mode: mode, durable: durable)
            try replaced.descriptor.close()
        }
    }

    /// Writes `bytes` to the file at `path` by rename; see ``replace(directory:name:bytes:mode:durable:)``.
    package static func replace(path: String, bytes: [UInt8], mode: UInt32, durable: Bool) throws(Errno) {
        let (directory, name) = FileSystem.directoryAndName(of: path)
        try replace(directory: directory, name: name, bytes: bytes, mode: mode, durable: durable)
    }

    /// What ``replace(in:name:bytes:mode:durable:)`` put in place.
    package struct Replaced: ~Copyable {
        /// The new file, still open (write-only), now the caller's (keeping it open pins its
        /// inode, so no later file can reuse the number while the caller remembers it).
        package var descriptor: FileDescriptor
        /// `fstat` of the new file **after** the rename (a rename changes the file's ctime), so
        /// it equals what `lstat`/`fstatat` of the name shows until someone changes the file.
        package var status: FileStatus

        /// Hands over the new file's descriptor.
        package consuming func takeDescriptor() -> FileDescriptor { descriptor }
    }

    /// Writes `bytes` to `name` inside the open directory `directory` by rename.
    ///
    /// A temporary file `.<name>.tmp-<pid>-<counter>` is created (`openat` with
    /// `O_CREAT|O_EXCL|O_CLOEXEC|O_WRONLY|O_NOFOLLOW` and `mode`) in the same directory, or with
    /// `staged` in its staging subdirectory (see ``Staging``), given exactly `mode` with `fchmod`
    /// when its `fstat` shows that the process umask removed bits of it, filled (short writes are continued,
    /// `EINTR` retried), `fsync`ed when `durable`, renamed over `name` (`renameat`), then
    /// `directory` is `fsync`ed when `durable`, so the rename itself survives a crash. On any
    /// failure the temporary file is unlinked and the destination is untouched. Without `durable`
    /// the replace is still atomic for readers but a power loss may lose it.
    ///
    /// Staged, a watcher of `directory` sees one event per replace (`IN_MOVED_TO` of `name`)
    /// instead of the temporary file's creation and its rename away as well.
    ///
    /// System calls for a durable replace: `openat`, `fstat`, `write`, `fsync`, `renameat`, `fstat`,
    /// `fsync` (directory), plus `fchmod` only under a umask that masks `mode`, and, staged, the
    /// staging directory's creation the first time (``Staging/prepare(in:)``). The directory
    /// descriptor is the caller's and stays open.
    ///
    /// - Parameters:
    ///   - staged: write the temporary file in `directory`'s staging subdirectory, creating it
    ///     (with `directory`'s own permissions) when it is missing.
    ///   - beforeRename: runs once the temporary file is complete (and fsynced when `durable`),
    ///     just before the rename makes it visible; if it throws, the temporary file is removed,
    ///     `name` is untouched and its error is rethrown. For a caller whose other durable write
    ///     must be on disk before anyone can see this file, and that lets both fsyncs overlap.
    /// - Throws: the `errno` of the first failing call.
    package static func replace(
        in directory: borrowing FileDescriptor, name: String, bytes: [UInt8], mode: UInt32, durable: Bool, staged: Bool = false,
        beforeRename: () throws(Errno) -> Void = {}
    ) throws(Errno) -> Replaced {
        let temporaryName = (staged ? Staging.name + "/" : "") + ".\(name).tmp-\(ProcessIdentity.processID)-\(TemporarySuffix.next())"
        let options: FileDescriptor.OpenOptions = [.create, .exclusiveCreate, .closeOnExec, .noFollow]
        let file: FileDescriptor
        do throws(Errno) {
            file = try FileDescriptor.open(temporaryName, relativeTo: directory, .writeOnly, options: options, permissions: mode)
        } catch .noSuchFileOrDirectory where staged {
            // The staging directory is missing (first replace here, or someone removed it).
            try Staging.prepare(in: directory)
            file = try FileDescriptor.open(temporaryName, relativeTo: directory, .writeOnly, options: options, permissions: mode)
        }
        var renamed = false
        let status: FileStatus
        do throws(Errno) {
            // The umask is read from the new file itself: asking the kernel for it would
            // mean setting it, and /proc/self/status costs more than the whole write.
            if try file.fstat().permissions != mode { try file.changeMode(mode) }
            try file.writeAll(bytes)
            if durable { try file.fsync() }
            try beforeRename()
            try directory.rename(temporaryName, to: name)
            renamed = true
            let renamedStatus = try file.fstat()
            if durable { try directory.fsync() }
            status = renamedStatus
        } catch {
            if !renamed { try? directory.removeEntry(temporaryName) }
            throw error
        }
        return Replaced(descriptor: file, status: status)
    }

    /// The last field of a temporary name: a process-wide counter that starts at a random value,
    /// so two replaces of one process never pick the same name (`O_EXCL` refuses a clash with
    /// any other file) and processes that share a process ID (in different PID namespaces) are
    /// as unlikely to meet as with a fresh random number each time, without asking the kernel
    /// for randomness (`getrandom`) on every replace.
    enum TemporarySuffix {
        private static let counter = Atomic<UInt64>(UInt64.random(in: 0...UInt64.max))

        /// The next suffix; never the same twice in one process (until 2^64 replaces).
        static func next() -> UInt64 {
            counter.wrappingAdd(1, ordering: .relaxed).newValue
        }
    }
}
