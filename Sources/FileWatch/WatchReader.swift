import FoundationEssentials
import SystemShims

/// Where a ``WatchReader`` delivers what it reads, and how it learns to stop.
///
/// Two consumers exist: ``WatchChannel`` (the reader runs on its own thread and hands changes to the
/// iterator's task) and ``InlineWatchConsumer`` (the reader runs on the caller's thread and calls the
/// caller's handler directly, never holding changes back). A ``DirectoryWatchSet`` reads its shared
/// instance itself, for its owner's thread.
protocol WatchConsumer: ~Copyable {
    /// Whether the reader must stop now, and whether changes it delivered are still waiting to be taken
    /// (while they are, the reader leaves new events in the kernel queue).
    mutating func readerStatus() -> (cancelled: Bool, hasPending: Bool)
    /// Takes `changes` (never empty), all of it at once.
    mutating func publish(_ changes: PendingChanges)
}

/// A consumer fed by a reader on a thread of its own (``WatchReader/start(directory:filter:settle:consumer:)``):
/// it learns the reader's eventfd, to wake it when the watch is cancelled, and hears when the reader has finished.
protocol ThreadedWatchConsumer: WatchConsumer, AnyObject, Sendable {
    /// Publishes the reader's eventfd. Returns `false` if the watch was cancelled before the reader started.
    func registerWakeDescriptor(_ descriptor: CInt) -> Bool
    /// Withdraws the eventfd before the reader closes its descriptors; nobody signals it afterwards.
    func withdrawWakeDescriptor()
    /// Records that the reader has closed its descriptors and stopped, with `failure` if it stopped on an error.
    func finishReader(failure: FileWatchError?)
}

/// The body of a watch: the loop that reads inotify and turns kernel events into ``PendingChanges``.
///
/// It owns the ``Inotify`` instance for its whole life: it creates it, arms the watch, blocks in `poll`
/// on the inotify descriptor and the wake-up eventfd (or, for a watch run on its caller's thread
/// with no settle window, in the inotify `read` itself), and hands what it reads to its consumer; its
/// owner closes both descriptors by ending its lifetime (``close()``). No other thread ever closes,
/// reads or polls these descriptors.
struct WatchReader<Consumer: WatchConsumer>: ~Copyable {
    private let inotify: Inotify
    private var tracker: DirectoryTracker
    private(set) var consumer: Consumer
    /// The settle window in nanoseconds; 0 when name changes are published as soon as read.
    /// Kept as an integer, with the deadline on `CLOCK_MONOTONIC`: `Duration` and
    /// `ContinuousClock.Instant` are resilient standard-library types, looked up and handled
    /// through their metadata, which a wake-up then pays for even with no window.
    private let settleNanoseconds: UInt64
    /// Name changes read but held back until the settle window closes (always empty with no window).
    private var unpublished = PendingChanges()
    /// When (`Clocks.monotonicNanoseconds`) the settle window for ``unpublished`` closes.
    private var settleDeadline: UInt64?

    /// Whether name changes are held back for a settle window.
    private var holdsBack: Bool { settleNanoseconds > 0 }

    /// An `inotify` that blocks in `read` can only be used with no settle window: nothing would
    /// end the read when the window closes.
    init(inotify: consuming Inotify, tracker: DirectoryTracker, consumer: Consumer, settle: Duration) {
        precondition(!inotify.blocksInRead || settle <= .zero, "a blocking inotify read cannot keep a settle window")
        self.inotify = inotify
        self.tracker = tracker
        self.consumer = consumer
        self.settleNanoseconds = Self.nanoseconds(settle)
    }

    /// Closes the inotify descriptor and the eventfd (by ending the reader's, hence the ``Inotify``'s, lifetime).
    consuming func close() {}

    /// Arms the watch and reads until the consumer says to stop. Returns `nil` when stopped, or the error
    /// that stopped the watch.
    mutating func readUntilCancelled() -> FileWatchError? {
        do throws(FileWatchError) {
            var changes = PendingChanges()
            try tracker.arm(using: inotify, into: &changes)
            offer(changes)
            while true {
                let status = consumer.readerStatus()
                if status.cancelled { return nil }
                if inotify.blocksInRead {
                    // Only the kernel's events can end this wait, and nothing is held back.
                    try drain()
                    continue
                }
                // While the consumer has not taken what is pending, leave new events in the kernel queue.
                let readiness = try inotify.wait(forEvents: !status.hasPending, timeoutMilliseconds: settleTimeout())
                if readiness.woken { inotify.consumeWakeups() }
                if readiness.eventsReady { try drain() }
                publishIfSettled()
            }
        } catch {
            return error
        }
    }

    /// Reads until the kernel queue is empty, offering every batch at once so that a waiting
    /// consumer is served without delay. A batch that left room in the buffer emptied the queue
    /// (``Inotify/Batch/mayHaveMore``), so the usual wake-up costs one `read`, not a second one
    /// that fails with EAGAIN; events queued after it make the next `poll` return at once.
    private mutating func drain() throws(FileWatchError) {
        while let batch = try inotify.readEvents() {
            var changes = PendingChanges()
            try batch.forEach { event throws(FileWatchError) in
                try tracker.handle(event, using: inotify, into: &changes)
            }
            offer(changes)
            if !batch.mayHaveMore || consumer.readerStatus().cancelled { return }
        }
    }

    /// Publishes `changes` now, or holds name changes back until the settle window closes. Structural
    /// changes are never delayed, and take along whatever was held back.
    private mutating func offer(_ changes: PendingChanges) {
        guard !changes.isEmpty else { return }
        if unpublished.isEmpty { unpublished = changes } else { unpublished.merge(changes) }
        if !holdsBack || changes.hasStructuralChange {
            publishHeldBack()
        } else if settleDeadline == nil {
            let now = Clocks.monotonicNanoseconds
            settleDeadline = now.addingReportingOverflow(settleNanoseconds).overflow ? .max : now + settleNanoseconds
        }
    }

    private mutating func publishIfSettled() {
        if let settleDeadline, settleDeadline <= Clocks.monotonicNanoseconds { publishHeldBack() }
    }

    private mutating func publishHeldBack() {
        consumer.publish(unpublished)
        unpublished = PendingChanges()
        settleDeadline = nil
    }

    /// Milliseconds until the settle window closes, rounded up; -1 (wait indefinitely) when nothing is held back.
    private func settleTimeout() -> CInt {
        guard let settleDeadline else { return -1 }
        let now = Clocks.monotonicNanoseconds
        guard settleDeadline > now else { return 0 }
        let remaining = settleDeadline - now
        return CInt(clamping: remaining / 1_000_000 + (remaining % 1_000_000 == 0 ? 0 : 1))
    }

    /// `duration` in whole nanoseconds, rounded up (a window is never shortened); 0 for a
    /// duration of zero or less, `UInt64.max` past what fits.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let fraction = UInt64((attoseconds + 999_999_999) / 1_000_000_000)
        guard !overflow, whole <= .max - fraction else { return .max }
        return whole + fraction
    }
}

extension WatchReader where Consumer: ThreadedWatchConsumer {
    /// Starts a reader for `consumer` on a new thread.
    static func start(directory: String, filter: NameFilter, settle: Duration, consumer channel: Consumer) {
        do throws(Errno) {
            try DetachedThread.start {
                run(directory: directory, filter: filter, settle: settle, channel: channel)
            }
        } catch {
            channel.finishReader(failure: FileWatchError(errno: error, path: directory, operation: .startReader))
        }
    }

    /// The reader thread's body: reads until cancelled, withdraws the eventfd from the consumer, closes both
    /// descriptors, and only then reports that it has finished.
    static func run(directory: String, filter: NameFilter, settle: Duration, channel: Consumer) {
        let inotify: Inotify
        do {
            inotify = try Inotify(directory: directory)
        } catch {
            channel.finishReader(failure: error)
            return
        }
        guard let wakeDescriptor = inotify.wakeDescriptor, channel.registerWakeDescriptor(wakeDescriptor) else {
            inotify.close()
            channel.finishReader(failure: nil)
            return
        }
        var reader = WatchReader(
            inotify: inotify, tracker: DirectoryTracker(directory: directory, filter: filter), consumer: channel, settle: settle)
        let failure = reader.readUntilCancelled()
        channel.withdrawWakeDescriptor()
        reader.close()
        channel.finishReader(failure: failure)
    }
}
