import SystemShims

/// The owner of one inotify instance, of the eventfd that wakes its reader (when it has one), and of
/// the read buffer.
///
/// Several ``DirectoryTracker``s may share the instance (``DirectoryWatchSet``): a watch is added
/// with `IN_MASK_ADD`, so a second tracker on the same directory widens its mask instead of
/// replacing it, and is counted per holder, so the kernel's watch goes only when its last holder
/// releases it (``removeWatch(_:)``). Each tracker filters the events it did not ask for.
///
/// The type is `~Copyable`: exactly one owner (the reader thread) holds both descriptors and closes
/// them when its lifetime ends (``close()`` or `deinit`), only after it has stopped using them. Other
/// threads never touch ``descriptor``; they may signal the eventfd only through ``wake(descriptor:)``
/// with the number ``wakeDescriptor`` while the owner guarantees it is open (see `WatchChannel`).
struct Inotify: ~Copyable {
    /// The inotify descriptor, opened with `IN_NONBLOCK | IN_CLOEXEC`.
    let descriptor: FileDescriptor
    /// An eventfd (`EFD_NONBLOCK | EFD_CLOEXEC`) written to wake the reader out of `poll`; none
    /// for an instance that blocks in `read`, which only the kernel's events can end, nor for one
    /// whose owner polls it with descriptors of its own.
    private let wake: FileDescriptor?
    /// How many holders each watch descriptor has.
    private let holds = WatchHolds()
    /// The directory being watched, for error messages.
    private let directory: String
    /// Room for many events per `read`, aligned for `struct inotify_event`.
    private let buffer: UnsafeMutableRawBufferPointer
    /// `InotifyEventHeader.size`, read once here rather than through its lazily initialized
    /// global on every wake-up.
    private let headerSize = InotifyEventHeader.size
    /// Whether ``readEvents()`` waits for an event instead of returning `nil` on an empty queue.
    let blocksInRead: Bool

    /// 64 KiB: at least one event with the longest name (header plus NAME_MAX + 1) and, in practice, a few
    /// thousand events per `read`.
    static let bufferSize = 64 * 1024

    /// Creates the inotify instance and, unless it blocks in `read`, its wake-up eventfd.
    /// - Parameter blocksInRead: make ``readEvents()`` wait for the next event on an empty queue,
    ///   for a reader that has nothing to wait for but the kernel's events (no other thread wakes
    ///   it, nothing is held back for a settle window): it then waits in the `read` itself, one
    ///   system call per wake-up, instead of in `poll` and then a `read`.
    /// - Parameter wakeable: give a non-blocking instance its eventfd; without one its owner polls
    ///   ``descriptor`` among descriptors of its own.
    /// - Throws: ``FileWatchError`` with operation `.createInstance` (EMFILE: the per-user instance limit)
    ///   or `.createWakeup`; nothing stays open when it throws.
    init(directory: String, blocksInRead: Bool = false, wakeable: Bool = true) throws(FileWatchError) {
        let inotify: FileDescriptor
        do { inotify = try FileDescriptor.makeInotify(nonBlocking: !blocksInRead) } catch {
            throw FileWatchError(errno: error, path: directory, operation: .createInstance)
        }
        var wake: FileDescriptor?
        if !blocksInRead && wakeable {
            do { wake = try FileDescriptor.makeEventCounter() } catch {
                throw FileWatchError(errno: error, path: directory, operation: .createWakeup)
            }
        }
        self.descriptor = inotify
        self.wake = wake
        self.blocksInRead = blocksInRead
        self.directory = directory
        self.buffer = .allocate(byteCount: Self.bufferSize, alignment: InotifyEventHeader.alignment)
    }

    deinit {
        // The descriptors close themselves, after this.
        buffer.deallocate()
    }

    /// Closes both descriptors now. Call only once nobody can still signal the eventfd.
    consuming func close() {
        // Consuming `self` ends its lifetime here, which runs `deinit`.
    }

    /// The eventfd's number, for ``wake(descriptor:)`` from other threads while this value lives;
    /// `nil` when the instance blocks in `read` and has none.
    var wakeDescriptor: CInt? {
        switch wake {
        case .some(let wake): wake.rawValue
        case .none: nil
        }
    }

    /// Adds a watch on `path` for the caller, one more holder of it; the events of `mask` are
    /// added to those the watch already reports.
    /// - Returns: the watch descriptor; the same one if `path` is an inode already watched.
    /// - Throws: ``FileWatchError`` with operation `.addWatch`; ENOENT and ENOTDIR mean the directory is not
    ///   there (yet), ENOSPC the per-user watch limit.
    func addWatch(path: String, mask: InotifyMask) throws(FileWatchError) -> CInt {
        let watchDescriptor: CInt
        do { watchDescriptor = try descriptor.addWatch(path: path, mask: mask.rawValue | InotifyBits.maskAdd) } catch {
            throw FileWatchError(errno: error, path: path, operation: .addWatch)
        }
        holds.counts[watchDescriptor, default: 0] += 1
        return watchDescriptor
    }

    /// Releases the caller's hold on a watch, and removes the watch once nobody holds it. EINVAL
    /// (the kernel already dropped it) is expected and ignored; the kernel then queues `IN_IGNORED`
    /// for it, which the readers ignore as an unknown descriptor.
    func removeWatch(_ watchDescriptor: CInt) {
        guard let count = holds.counts[watchDescriptor], count > 1 else {
            holds.counts[watchDescriptor] = nil
            descriptor.removeWatch(watchDescriptor)
            return
        }
        holds.counts[watchDescriptor] = count - 1
    }

    /// Releases the caller's hold on a watch the kernel has dropped (`IN_IGNORED`).
    func forgetWatch(_ watchDescriptor: CInt) {
        guard let count = holds.counts[watchDescriptor], count > 1 else {
            holds.counts[watchDescriptor] = nil
            return
        }
        holds.counts[watchDescriptor] = count - 1
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
        let ready: (first: Bool, second: Bool)
        do {
            ready = try FileDescriptor.waitForInput(
                wakeDescriptor ?? -1, forEvents ? descriptor.rawValue : nil, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw FileWatchError(errno: error, path: directory, operation: .wait)
        }
        return Readiness(eventsReady: ready.second, woken: ready.first)
    }

    /// Resets the wake-up eventfd's counter so the next `poll` blocks again.
    func consumeWakeups() {
        switch wake {
        case .some(let wake): wake.drainEventCounter()
        case .none: break
        }
    }

    /// Makes `poll` on the eventfd `descriptor` return. Safe from any thread while the descriptor is open.
    /// EAGAIN (the counter is saturated, so the reader is already woken) is ignored.
    static func wake(descriptor: CInt) {
        FileDescriptor.signalEventCounter(descriptor)
    }

    /// The longest event the kernel can queue: its header and a name of `NAME_MAX` (255) bytes
    /// with its terminating NUL, padded to a multiple of the header's size (256 bytes).
    var longestEvent: Int { headerSize + 256 }

    /// One batch of events, read in place in the buffer, and whether the queue may hold more.
    /// Valid until the next ``readEvents()``.
    struct Batch {
        /// The bytes the `read` returned.
        var bytes: UnsafeRawBufferPointer
        /// `false` when the `read` left room for the longest event: the kernel copies events
        /// until the queue is empty or the next one does not fit, so the queue was empty then and
        /// a second `read` would only fail with EAGAIN.
        var mayHaveMore: Bool
        /// `MemoryLayout<inotify_event>.size`, taken once.
        var headerSize: Int

        /// Calls `body` with each event, in the order read.
        func forEach(_ body: (InotifyEvent) throws(FileWatchError) -> Void) throws(FileWatchError) {
            try InotifyEvent.forEach(in: bytes, headerSize: headerSize, body)
        }
    }

    /// Reads one batch of events, waiting for one first if ``blocksInRead``.
    /// - Returns: the batch, or `nil` once the queue is empty (EAGAIN). EINTR is retried.
    /// - Throws: ``FileWatchError`` with operation `.read` for any other failure.
    func readEvents() throws(FileWatchError) -> Batch? {
        let count: Int
        do { count = try descriptor.read(into: buffer) } catch .wouldBlock {
            return nil
        } catch {
            throw FileWatchError(errno: error, path: directory, operation: .read)
        }
        if count == 0 { return nil }
        return Batch(
            bytes: UnsafeRawBufferPointer(rebasing: buffer[..<count]), mayHaveMore: count > Self.bufferSize - longestEvent,
            headerSize: headerSize)
    }
}

/// The holders of each watch of an ``Inotify``, used by its owner's thread only.
private final class WatchHolds {
    var counts: [CInt: Int] = [:]
}
