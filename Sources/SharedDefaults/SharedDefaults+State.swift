import PropertyList
import SystemShims

extension SharedDefaults {
    /// Everything an instance remembers between calls, behind its mutex.
    struct State: ~Copyable {
        /// The last good read, and when a refresh may answer from it.
        var cache = ReadCache()
        /// Fallback values for keys the file does not have (``SharedDefaults/register(defaults:)``).
        var registered: PropertyListDictionary = [:]
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
        /// The file this instance's last write replaced, kept open until its next write has
        /// renamed a new file into place. Readers keep the file they last read open until they
        /// read the next one, so without this the last of them to let go of a replaced file
        /// would free it (on tmpfs its pages, on a durable file system its truncation and the
        /// journal's orphan bookkeeping) on its way to the new entry. Held here, it is freed by
        /// the writer after its next rename, while readers wake, as a plain `rename` over the
        /// file frees the old one. Costs one descriptor and one unlinked file's space.
        var replacedFile: SharedFileDescriptor?
    }
}
