import Glibc

extension AtomicFile {
    /// The subdirectory where a staged replace writes its temporary file before renaming it into
    /// the directory that holds the destination.
    ///
    /// A `rename` between two directories of one file system is as atomic as one inside a
    /// directory, and an inotify watch on the destination's directory sees only its end
    /// (`IN_MOVED_TO` of the destination's name): the temporary file's creation, its close and the
    /// `IN_MOVED_FROM` of its name happen in the staging directory, which nobody watches. So a
    /// watcher that wakes on every change of the directory wakes once per replace.
    ///
    /// Durability needs no `fsync` of the staging directory: the destination's name is made
    /// durable by the `fsync` of its own directory after the rename, and what a crash can leave
    /// in the staging directory is at worst a temporary name (of a file that was never renamed,
    /// or a second name of the renamed one), which
    /// ``AtomicFile/removeStaleTemporaryFiles(in:)`` removes with the other leftovers.
    package enum Staging {
        /// The staging directory's name inside the destination's directory.
        package static let name = ".staging"

        /// Makes sure `directory` has a usable staging subdirectory: creates it with exactly the
        /// permissions of `directory` itself (so the container's directory rules hold for it too)
        /// when it is missing, and otherwise checks that what is there is a directory, not a
        /// symbolic link, owned by this process's effective user and not world-writable.
        ///
        /// - Throws: `ENOTDIR` when something else has the name, `EPERM` when it belongs to
        ///   another user or is world-writable, or the `errno` of the failing call.
        package static func prepare(in directory: borrowing FileDescriptor) throws(Errno) {
            let permissions = try directory.fstat().permissions & 0o777
            let parent = directory.rawValue
            if system_mkdirat(parent, name, mode_t(permissions)) == 0 {
                // mkdir applied the umask: set exactly the directory's permissions.
                let made = try FileDescriptor.open(name, relativeTo: directory, .readOnly, options: [.directory, .noFollow, .closeOnExec])
                try made.closeAfter { made throws(Errno) in try made.changeMode(permissions) }
                return
            }
            let error = Errno.current
            guard error == .exists else { throw error }
            let status = try directory.status(ofEntry: name)
            guard status.type == .directory else { throw .notDirectory }
            guard status.userID == ProcessIdentity.effectiveUserID, !status.isWorldWritable else { throw .notPermitted }
        }
    }
}
