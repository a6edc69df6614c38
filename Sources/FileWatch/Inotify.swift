import Glibc

/// The owner of one inotify instance, of the eventfd that wakes its reader, and of the read buffer.
///
/// Every Glibc call of the module lives here. The type is `~Copyable`: exactly one owner (the reader
/// thread) closes both descriptors, in `deinit` or ``close()``, and only after it has stopped using them.
/// Other threads never touch ``descriptor``; they may signal ``wakeDescriptor`` only through
/// ``wake(descriptor:)`` while the owner guarantees it is open (see `WatchChannel`).
struct Inotify: ~Copyable {
    /// The inotify descriptor, opened with `IN_NONBLOCK | IN_CLOEXEC`.
    let descriptor: CInt
    /// An eventfd (`EFD_NONBLOCK | EFD_CLOEXEC`) written to wake the reader out of `poll`.
    let wakeDescriptor: CInt
    /// The directory being watched, for error messages.
    private let directory: String
    /// Room for many events per `read`, aligned for `struct inotify_event`.
    private let buffer: UnsafeMutableRawBufferPointer

    /// 64 KiB: at least one event with the longest name (header plus NAME_MAX + 1) and, in practice, a few
    /// thousand events per `read`.
    static let bufferSize = 64 * 1024

    /// Creates the inotify instance and its wake-up eventfd.
    /// - Throws: ``FileWatchError`` with operation `.createInstance` (EMFILE: the per-user instance limit)
    ///   or `.createWakeup`; nothing stays open when it throws.
    init(directory: String) throws(FileWatchError) {
        let inotifyDescriptor = inotify_init1(CInt(IN_NONBLOCK) | CInt(IN_CLOEXEC))
        guard inotifyDescriptor >= 0 else {
            throw FileWatchError(errno: errno, path: directory, operation: .createInstance)
        }
        let eventDescriptor = Self.makeEventDescriptor()
        guard eventDescriptor >= 0 else {
            let code = errno
            _ = Glibc.close(inotifyDescriptor)
            throw FileWatchError(errno: code, path: directory, operation: .createWakeup)
        }
        self.descriptor = inotifyDescriptor
        self.wakeDescriptor = eventDescriptor
        self.directory = directory
        self.buffer = .allocate(byteCount: Self.bufferSize, alignment: MemoryLayout<inotify_event>.alignment)
    }

    deinit {
        // Never retried on EINTR: on Linux the descriptor is released even when close reports EINTR.
        _ = Glibc.close(descriptor)
        _ = Glibc.close(wakeDescriptor)
        buffer.deallocate()
    }

    /// Closes both descriptors now. Call only once nobody can still signal ``wakeDescriptor``.
    consuming func close() {
        // Consuming `self` ends its lifetime here, which runs `deinit`.
    }

    /// Adds (or updates) a watch on `path`.
    /// - Returns: the watch descriptor; the same one if `path` is an inode already watched.
    /// - Throws: ``FileWatchError`` with operation `.addWatch`; ENOENT and ENOTDIR mean the directory is not
    ///   there (yet), ENOSPC the per-user watch limit.
    func addWatch(path: String, mask: InotifyMask) throws(FileWatchError) -> CInt {
        let watchDescriptor = inotify_add_watch(descriptor, path, mask.rawValue)
        guard watchDescriptor >= 0 else {
            throw FileWatchError(errno: errno, path: path, operation: .addWatch)
        }
        return watchDescriptor
    }

    /// Removes a watch. EINVAL (the kernel already dropped it) is expected and ignored; the kernel then
    /// queues `IN_IGNORED` for it, which the reader ignores as an unknown descriptor.
    func removeWatch(_ watchDescriptor: CInt) {
        _ = inotify_rm_watch(descriptor, watchDescriptor)
    }

    /// What ended ``wait(forEvents:timeoutMilliseconds:)``; both false when the timeout elapsed.
    struct Readiness {
        var eventsReady: Bool
        var woken: Bool
    }

    /// Blocks in `poll` on the wake-up eventfd and, if `forEvents`, on the inotify descriptor, for at most
    /// `timeoutMilliseconds` (-1: no timeout). EINTR is retried (restarting the full timeout, which only
    /// lengthens a settle window). Error conditions on a descriptor count as ready so that the following read
    /// reports them.
    func wait(forEvents: Bool, timeoutMilliseconds: CInt = -1) throws(FileWatchError) -> Readiness {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        if forEvents {
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        while poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds) < 0 {
            let code = errno
            guard code == EINTR else {
                throw FileWatchError(errno: code, path: directory, operation: .wait)
            }
        }
        return Readiness(
            eventsReady: descriptors.count > 1 && descriptors[1].revents != 0,
            woken: descriptors[0].revents != 0
        )
    }

    /// Resets the wake-up eventfd's counter so the next `poll` blocks again.
    func consumeWakeups() {
        var counter: UInt64 = 0
        _ = read(wakeDescriptor, &counter, MemoryLayout<UInt64>.size)
    }

    /// Makes `poll` on the eventfd `descriptor` return. Safe from any thread while the descriptor is open.
    /// EAGAIN (the counter is saturated, so the reader is already woken) is ignored.
    static func wake(descriptor: CInt) {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Reads one batch of events.
    /// - Returns: the parsed events, or `nil` once the queue is empty (EAGAIN). EINTR is retried.
    /// - Throws: ``FileWatchError`` with operation `.read` for any other failure.
    func readEvents() throws(FileWatchError) -> [InotifyEvent]? {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 {
                return InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            if count == 0 { return nil }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw FileWatchError(errno: code, path: directory, operation: .read)
        }
    }

    /// `eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)`. The Glibc module map does not include `sys/eventfd.h`, so the
    /// function is looked up in the C library; its flags have the values of O_NONBLOCK and O_CLOEXEC on Linux.
    private static func makeEventDescriptor() -> CInt {
        guard let eventfd = eventFDFunction else {
            errno = ENOSYS
            return -1
        }
        return eventfd(0, O_NONBLOCK | O_CLOEXEC)
    }
}

private typealias EventFDFunction = @convention(c) (CUnsignedInt, CInt) -> CInt

/// The C library's `eventfd`, resolved once.
private let eventFDFunction: EventFDFunction? = {
    guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "eventfd") else { return nil }
    return unsafeBitCast(symbol, to: EventFDFunction.self)
}()
