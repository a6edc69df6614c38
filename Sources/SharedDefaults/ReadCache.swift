import PropertyList
import SystemShims

/// When a refresh may answer from the last read instead of opening the suite file again.
///
/// The policy, in one place: the file is keyed by what `fstatat(directory, name,
/// AT_SYMLINK_NOFOLLOW)` says of it plus which validated directory it is in (``Key``). A refresh
/// that finds the same key as the last good read answers ``Answer/unchanged`` from
/// ``contents`` without opening or decoding anything; the same key as the last refused file
/// answers with the same refusal; any other key means: open, validate and decode the file.
///
/// Why an equal key is the same file: the key holds the file's device, inode, size,
/// modification and change times in nanoseconds, mode, owner, group and link count, and the last good
/// file stays open (``accept(_:key:pinning:)``), so its inode cannot be freed and reused by a
/// new file that would then compare equal. Anything that writes, truncates, `chmod`s,
/// `chown`s, links or replaces it changes the key.
///
/// A refused file never replaces what was read before: ``contents`` stays the last good
/// dictionary until another file is accepted or the file is gone.
package struct ReadCache {
    /// What identifies one version of the suite file: every field of its `fstatat` (device,
    /// inode, size, mode, owner, group, link count, modification and change times in
    /// nanoseconds) and which directory it is in, with that directory's mode and owner. The
    /// directory's times are left out on purpose: other suites and temporary files in the same
    /// directory change them. Plain integers, so comparing two keys is a few inlined compares.
    package struct Key: Hashable {
        package var directoryDevice: UInt64
        package var directoryInode: UInt64
        package var directoryMode: UInt32
        package var directoryOwner: UInt32
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var mode: UInt32
        package var userID: UInt32
        package var groupID: UInt32
        package var linkCount: UInt64
        package var modificationTimeNanoseconds: Int64
        package var changeTimeNanoseconds: Int64

        /// The key of the file whose `fstatat`/`fstat` is `file`, in the directory whose validated
        /// `fstat` is `directory`.
        package init(directory: FileStatus, file: FileStatus) {
            directoryDevice = directory.device
            directoryInode = directory.inode
            directoryMode = directory.mode
            directoryOwner = directory.userID
            device = file.device
            inode = file.inode
            size = file.size
            mode = file.mode  // its type bits too: a file turned into anything else is another key
            userID = file.userID
            groupID = file.groupID
            linkCount = file.linkCount
            modificationTimeNanoseconds = file.modificationTimeNanoseconds
            changeTimeNanoseconds = file.changeTimeNanoseconds
        }
    }

    /// What ``answer(for:)`` allows.
    package enum Answer: Equatable {
        /// The last good read still holds: serve ``ReadCache/contents``.
        case unchanged
        /// The same file was refused last time, for this reason: refuse it again unread.
        case refusedAgain(SharedDefaultsError)
        /// Unknown file: open, validate and decode it.
        case read
    }

    /// The last good dictionary read from the file (empty when the file is missing).
    package private(set) var contents: PropertyListDictionary = [:]
    /// The key of the file `contents` came from.
    package private(set) var good: Key?
    /// The key of the file last refused, so an unchanged bad file is not read again.
    package private(set) var rejected: Key?
    /// Why the last look refused the file, or `nil` if it was good or missing.
    package private(set) var lastError: SharedDefaultsError?
    /// The last good file, kept open so that its inode cannot be reused by a new file that
    /// would then compare equal to `good`.
    private var pinnedFile: SharedFileDescriptor?

    /// Nothing read yet: every file is unknown.
    package init() {}

    /// What a refresh that found `key` may answer without opening the file. Finding the good
    /// file again clears ``lastError``.
    package mutating func answer(for key: Key) -> Answer {
        if let good, good == key {
            lastError = nil
            return .unchanged
        }
        if let rejected, rejected == key, let lastError { return .refusedAgain(lastError) }
        return .read
    }

    /// Adopts a newly read (or written) good file: `contents` are served from now on, and
    /// `descriptor`, open on the file `key` describes, is kept open.
    /// - Returns: the file pinned until now, no longer needed here; a caller that lets it go
    ///   closes it then (a writer keeps it a little longer, see `SharedDefaults.Writer`).
    @discardableResult
    package mutating func accept(
        _ contents: PropertyListDictionary, key: Key, pinning descriptor: SharedFileDescriptor
    ) -> SharedFileDescriptor? {
        let previous = pinnedFile
        pinnedFile = descriptor
        self.contents = contents
        good = key
        rejected = nil
        lastError = nil
        return previous
    }

    /// Records a refusal and returns `error`. `key` is the refused file's, when it is known,
    /// so that the same unchanged file is refused again unread; `contents` are kept. A failed
    /// system call (``SharedDefaultsError/isSystemFailure``) judged no file: the same file is
    /// read again next time.
    package mutating func refuse(_ error: SharedDefaultsError, key: Key?) -> SharedDefaultsError {
        lastError = error
        rejected = error.isSystemFailure ? nil : key
        return error
    }

    /// The file is gone: serve an empty dictionary, and let go of the pinned file.
    package mutating func becomeMissing() {
        forgetFile()
        contents = [:]
    }

    /// Drops everything tied to the current file (keys, last error) and lets go of the pinned
    /// descriptor; `contents` stay, so the next good read or a missing file replaces them.
    package mutating func forgetFile() {
        pinnedFile = nil
        good = nil
        rejected = nil
        lastError = nil
    }
}
