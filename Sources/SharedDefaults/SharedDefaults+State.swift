import PropertyList
import SystemShims

extension SharedDefaults {
    /// Everything an instance remembers between calls, behind its mutex.
    struct State: ~Copyable {
        /// The last good read, and when a refresh may answer from it.
        var cache = ReadCache()
        /// Fallback values for keys the file does not have (``SharedDefaults/register(defaults:)``).
        var registered: [String: PropertyListValue] = [:]
        /// How many times the file was decoded (for tests of the unchanged fast path).
        var decodeCount = 0
        /// The preferences directory as last validated; every file operation goes through it.
        /// `nil` until the first look, and whenever it must be opened through the path again.
        var directory: ValidatedDirectory?
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
