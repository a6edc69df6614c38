/// What a ``DirectoryWatch`` reports.
///
/// Events are coalesced: one event may stand for many kernel notifications. The cases that say
/// "re-read everything" (``armed``, ``overflow``, ``rearmed``) subsume any name changes that were pending
/// when they were delivered, because the consumer reads the directory *after* receiving them.
public enum FileWatchEvent: Sendable, Hashable {
    /// The watch on the directory is in place. Always the first event: read the files now; any change made
    /// after this event was produced will be reported.
    case armed
    /// These watched names were created, replaced (moved to), closed after writing, deleted or moved away
    /// since the previous event. Each name is a plain file name inside the watched directory, never a path.
    case changed(Set<String>)
    /// The kernel's event queue overflowed (`IN_Q_OVERFLOW`) or more distinct names changed than the watcher
    /// keeps in memory: events were lost, so re-read everything.
    case overflow
    /// The watched directory was deleted or moved away. The watch now waits, without polling, for a directory
    /// to appear at the same path again and then reports ``rearmed``.
    case directoryRemoved
    /// A directory exists at the watched path again and is watched again: re-read everything.
    case rearmed
}
