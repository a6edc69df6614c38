import PropertyList
import SystemShims

extension SharedDefaults {
    /// What identifies one version of the suite file, as `lstat` sees it. The directory's times
    /// are left out on purpose: other suites in the same directory change them.
    struct FileIdentity: Hashable {
        var directoryDevice: UInt64
        var directoryInode: UInt64
        var directoryMode: UInt32
        var directoryOwner: UInt32
        var file: FileStatus

        init(directory: FileStatus, file: FileStatus) {
            directoryDevice = directory.device
            directoryInode = directory.inode
            directoryMode = directory.mode
            directoryOwner = directory.userID
            self.file = file
        }
    }

    /// Everything an instance remembers between calls, behind its mutex.
    struct State: ~Copyable {
        /// The last good dictionary read from the file (empty when the file is missing).
        var contents: [String: PropertyListValue] = [:]
        var registered: [String: PropertyListValue] = [:]
        /// The file `contents` came from.
        var goodIdentity: FileIdentity?
        /// The file last refused, so an unchanged bad file is not read again.
        var rejectedIdentity: FileIdentity?
        var lastError: SharedDefaultsError?
        /// The last good file, kept open so that its inode cannot be reused by a new file that
        /// would then compare equal to `goodIdentity`.
        var pinnedFile: SharedFileDescriptor?
        var decodeCount = 0
        /// The preferences directory, opened through ``SharedDefaults/directoryPath`` without
        /// following a symlink and validated; every file operation goes through it.
        var directory: SharedFileDescriptor?
        /// `fstat` of `directory` when it was last validated (or after this instance's own write).
        var directoryStatus: FileStatus?
        /// `CLOCK_MONOTONIC_COARSE` nanoseconds of the last validation through the path.
        var directoryValidatedAt: UInt64 = 0

        /// Adopts a newly read good file.
        mutating func accept(_ dictionary: [String: PropertyListValue], identity: FileIdentity, descriptor: SharedFileDescriptor) {
            pinnedFile = descriptor
            contents = dictionary
            goodIdentity = identity
            rejectedIdentity = nil
            lastError = nil
        }

        /// The file is gone: serve an empty dictionary.
        mutating func becomeMissing() {
            forgetFile()
            contents = [:]
        }

        /// Keeps `descriptor` (already validated, with `status`) as the directory, closing the
        /// previous one.
        mutating func adoptDirectory(_ descriptor: SharedFileDescriptor, status: FileStatus, at now: UInt64) {
            directory = descriptor
            directoryStatus = status
            directoryValidatedAt = now
        }

        /// Lets go of the kept directory descriptor (closed once no caller still uses it).
        mutating func forgetDirectory() {
            directory = nil
            directoryStatus = nil
        }

        /// Drops everything tied to the current file and lets go of the pinned descriptor.
        mutating func forgetFile() {
            pinnedFile = nil
            goodIdentity = nil
            rejectedIdentity = nil
            lastError = nil
        }
    }

    /// What a writing instance keeps between writes, behind its own mutex (held for a whole
    /// ``SharedDefaults/update(_:)``, never by a getter).
    struct Writer: ~Copyable {
        /// Which directory a lock file was opened in.
        struct DirectoryKey: Hashable {
            var device: UInt64
            var inode: UInt64
        }

        /// The lock file, open; valid while the preferences directory is `lockDirectory`.
        var lock: FileLock?
        var lockDirectory: DirectoryKey?
    }
}
