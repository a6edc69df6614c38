import Glibc

extension FileDescriptor {
    /// A new inotify instance (`inotify_init1` with `IN_CLOEXEC`, and `IN_NONBLOCK` unless told
    /// otherwise): reads fail with ``Errno/wouldBlock`` once the queue is empty, or, blocking,
    /// wait for the next event.
    ///
    /// - Throws: `EMFILE` at the per-user instance limit (`/proc/sys/fs/inotify/max_user_instances`).
    package static func makeInotify(nonBlocking: Bool = true) throws(Errno) -> FileDescriptor {
        let flags = CInt(IN_CLOEXEC) | (nonBlocking ? CInt(IN_NONBLOCK) : 0)
        return FileDescriptor(adopting: try valueOrErrno { system_inotify_init1(flags) })
    }

    /// Adds (or updates) a watch on `path` for the events in `mask` (`inotify_add_watch`) on
    /// this inotify instance.
    ///
    /// - Returns: the watch descriptor; the same one if `path` is an inode already watched.
    /// - Throws: `ENOENT`/`ENOTDIR` when the path is not there, `ENOSPC` at the per-user watch limit.
    package func addWatch(path: String, mask: UInt32) throws(Errno) -> CInt {
        let descriptor = rawValue
        return try valueOrErrno { system_inotify_add_watch(descriptor, path, mask) }
    }

    /// Removes a watch from this inotify instance (`inotify_rm_watch`). `EINVAL` (the kernel
    /// already dropped it) is expected and ignored.
    package func removeWatch(_ watchDescriptor: CInt) {
        _ = inotify_rm_watch(rawValue, watchDescriptor)
    }

    /// A new event counter (`eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)`), written to wake a thread
    /// out of ``waitForInput(_:_:timeoutMilliseconds:)``.
    ///
    /// - Throws: `ENOSYS` when the C library has no `eventfd`, else its `errno`.
    package static func makeEventCounter() throws(Errno) -> FileDescriptor {
        guard let eventfd = eventFDFunction else { throw Errno(rawValue: ENOSYS) }
        // EFD_NONBLOCK and EFD_CLOEXEC have the values of O_NONBLOCK and O_CLOEXEC on Linux.
        return FileDescriptor(adopting: try valueOrErrno { eventfd(0, O_NONBLOCK | O_CLOEXEC) })
    }

    /// Adds one to the event counter `rawValue`, making a `poll` on it return. Safe from any
    /// thread, but only while its owner guarantees the descriptor is open. `EAGAIN` (the counter
    /// is saturated, so the waiter is already woken) is ignored.
    package static func signalEventCounter(_ rawValue: CInt) {
        var one: UInt64 = 1
        _ = Glibc.write(rawValue, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets this event counter to zero, so the next `poll` on it blocks again.
    package func drainEventCounter() {
        var counter: UInt64 = 0
        _ = Glibc.read(rawValue, &counter, MemoryLayout<UInt64>.size)
    }

    /// Blocks in `poll(2)` until `first` or, when given, `second` is readable (or in an error
    /// state, which counts as ready so the following read reports it), for at most
    /// `timeoutMilliseconds` (-1: no timeout), without allocating. A negative descriptor is
    /// skipped. `EINTR` is retried, restarting the full timeout; a descriptor limit below two is
    /// waited out (``pollEntries(_:timeoutMilliseconds:)``).
    ///
    /// - Returns: whether each is ready (`second` is `false` when not given); both `false` when the
    ///   timeout elapsed.
    package static func waitForInput(_ first: CInt, _ second: CInt?, timeoutMilliseconds: CInt) throws(Errno) -> (first: Bool, second: Bool) {
        var requests = (
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second ?? -1, events: Int16(POLLIN), revents: 0)
        )
        // `poll` ignores an entry whose descriptor is negative (its `revents` stays 0).
        try withUnsafeMutableBytes(of: &requests) { bytes throws(Errno) in
            try pollEntries(bytes.bindMemory(to: pollfd.self), timeoutMilliseconds: timeoutMilliseconds)
        }
        return (requests.0.revents != 0, requests.1.revents != 0)
    }

}

/// The bits of an inotify watch mask and of an event's mask (`IN_*`), for the watcher's option set.
/// Computed, not stored: a stored static is a lazily initialized global, and a watcher tests an
/// event's mask against several of these on every wake-up.
package enum InotifyBits {
    package static var closeWrite: UInt32 { UInt32(IN_CLOSE_WRITE) }
    package static var movedFrom: UInt32 { UInt32(IN_MOVED_FROM) }
    package static var movedTo: UInt32 { UInt32(IN_MOVED_TO) }
    package static var create: UInt32 { UInt32(IN_CREATE) }
    package static var delete: UInt32 { UInt32(IN_DELETE) }
    package static var deleteSelf: UInt32 { UInt32(IN_DELETE_SELF) }
    package static var moveSelf: UInt32 { UInt32(IN_MOVE_SELF) }
    package static var unmount: UInt32 { UInt32(IN_UNMOUNT) }
    package static var queueOverflow: UInt32 { UInt32(IN_Q_OVERFLOW) }
    package static var ignored: UInt32 { UInt32(IN_IGNORED) }
    package static var onlyDirectory: UInt32 { UInt32(IN_ONLYDIR) }
    package static var excludeUnlinked: UInt32 { UInt32(IN_EXCL_UNLINK) }
    /// Adds the mask's events to those of an existing watch on the same inode instead of replacing them.
    package static var maskAdd: UInt32 { UInt32(IN_MASK_ADD) }
}

/// The fixed part of a `struct inotify_event` as read from an inotify descriptor; `nameLength`
/// bytes of NUL-padded name follow it.
package struct InotifyEventHeader: Sendable {
    package var watchDescriptor: CInt
    package var mask: UInt32
    package var cookie: UInt32
    package var nameLength: Int

    /// The header's size in bytes.
    package static let size = MemoryLayout<inotify_event>.size
    /// The alignment a read buffer needs.
    package static let alignment = MemoryLayout<inotify_event>.alignment

    /// The header at `offset` in `bytes`; the caller checks that ``size`` bytes are there.
    package init(in bytes: UnsafeRawBufferPointer, at offset: Int) {
        let header = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
        watchDescriptor = header.wd
        mask = header.mask
        cookie = header.cookie
        nameLength = Int(header.len)
    }
}

private typealias EventFDFunction = @convention(c) (CUnsignedInt, CInt) -> CInt

/// The C library's `eventfd` (Glibc's module map leaves out `sys/eventfd.h`), resolved once.
private let eventFDFunction: EventFDFunction? = cLibraryFunction(named: "eventfd", as: EventFDFunction.self)
