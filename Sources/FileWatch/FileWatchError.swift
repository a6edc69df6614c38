import SystemShims

/// A system call of the watcher failed.
///
/// Carries the `Errno` unchanged, the path involved and the operation, so callers can match on
/// ``errno`` (for example `error.errno == .noSpace`). The description names the kernel limit to raise when the
/// failure is one of inotify's per-user limits.
public struct FileWatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation that failed; the raw value is the C function's name.
    public enum Operation: String, Sendable, Hashable {
        /// Creating the inotify instance (`inotify_init1`).
        case createInstance = "inotify_init1"
        /// Creating the descriptor that wakes the reader for cancellation (`eventfd`).
        case createWakeup = "eventfd"
        /// Adding a watch on a directory (`inotify_add_watch`).
        case addWatch = "inotify_add_watch"
        /// Waiting for events (`poll`).
        case wait = "poll"
        /// Reading events (`read`).
        case read = "read"
        /// Starting the thread that reads the events (`pthread_create`).
        case startReader = "pthread_create"
    }

    /// The `errno` value reported by the failing call.
    public let errno: Errno
    /// The path the failing call was about: the directory (or ancestor) being watched.
    public let path: String
    /// The call that failed.
    public let operation: Operation

    /// Makes an error from an `errno` value, the path concerned and the failing operation.
    public init(errno: Errno, path: String, operation: Operation) {
        self.errno = errno
        self.path = path
        self.operation = operation
    }

    /// `"<operation> <path>: <strerror> (errno N)"`, followed by the `/proc/sys/fs/inotify` limit to raise
    /// when the failure is ENOSPC while adding a watch or EMFILE while creating an instance.
    public var description: String {
        var text = "\(operation.rawValue) \(path): \(errno.message) (errno \(errno.rawValue))"
        if let limit = exhaustedLimit {
            text += "; the inotify limit \(limit) is exhausted, raise it or stop other watchers"
        }
        return text
    }

    /// The kernel limit that this error means was reached, if any.
    var exhaustedLimit: String? {
        switch (operation, errno) {
        case (.addWatch, .noSpace): "/proc/sys/fs/inotify/max_user_watches"
        case (.createInstance, .tooManyOpenFiles): "/proc/sys/fs/inotify/max_user_instances"
        default: nil
        }
    }
}
