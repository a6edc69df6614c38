import Synchronization

/// The consumer of ``DirectoryWatch/forEachEvent(fallbackPollInterval:onFailure:_:)``: calls the
/// handler with each event on the reader's thread, and resumes the waiting task once the reader
/// has closed its descriptors.
///
/// Nothing is ever pending: every change was handed to the handler before the reader reads on,
/// so the handler (which must not block) is what bounds the work queued behind the watch.
final class WatchForwarder: ThreadedWatchConsumer {
    private struct State {
        var cancelled = false
        /// The reader's eventfd, present only while it is open: writing to it is safe under the lock.
        var wakeDescriptor: CInt?
        /// The reader has closed its descriptors, with the error that stopped it, if any.
        var finished: FileWatchError?? = nil
        var waiter: CheckedContinuation<FileWatchError?, Never>?
    }

    private let handler: @Sendable (FileWatchEvent) -> Void
    private let state = Mutex(State())

    init(handler: @escaping @Sendable (FileWatchEvent) -> Void) {
        self.handler = handler
    }

    /// Resumes `waiter` once the reader has finished (at once if it has), with its error or `nil`.
    func waitForReader(_ waiter: CheckedContinuation<FileWatchError?, Never>) {
        let finished: FileWatchError?? = state.withLock { state in
            if state.finished == nil { state.waiter = waiter }
            return state.finished
        }
        if let finished { waiter.resume(returning: finished) }
    }

    /// Ends the watch: the reader is woken, stops and closes its descriptors, then resumes the
    /// waiter. Idempotent; safe from any thread, including a cancellation handler.
    func cancel() {
        state.withLock { state in
            guard !state.cancelled else { return }
            state.cancelled = true
            if let wakeDescriptor = state.wakeDescriptor { Inotify.wake(descriptor: wakeDescriptor) }
        }
    }

    // MARK: Reader side

    func readerStatus() -> (cancelled: Bool, hasPending: Bool) {
        (state.withLock { $0.cancelled }, false)
    }

    func publish(_ changes: PendingChanges) {
        changes.forEachEvent { event in
            if state.withLock({ $0.cancelled }) { return false }
            handler(event)
            return true
        }
    }

    func registerWakeDescriptor(_ descriptor: CInt) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.wakeDescriptor = descriptor
            return true
        }
    }

    func withdrawWakeDescriptor() {
        state.withLock { $0.wakeDescriptor = nil }
    }

    func finishReader(failure: FileWatchError?) {
        let waiter = state.withLock { state -> CheckedContinuation<FileWatchError?, Never>? in
            // A reader stopped by cancellation reports no error.
            state.finished = .some(state.cancelled ? nil : failure)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: state.withLock { $0.finished! })
    }
}
