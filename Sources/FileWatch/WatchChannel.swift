import Synchronization

/// The state shared by the reader thread and the iterator, behind one `Mutex`.
///
/// The reader merges what it reads into ``State/pending``; the iterator takes the whole value at once or
/// suspends until the reader fills it. While changes are pending and nobody waits for them, the reader
/// stops reading, so the kernel queue (bounded by `max_queued_events`, reported as `IN_Q_OVERFLOW`) is
/// the only buffer that grows with a slow consumer.
final class WatchChannel: ThreadedWatchConsumer {
    /// What the iterator receives when it resumes.
    enum Delivery: Sendable {
        case changes(PendingChanges)
        case failed(FileWatchError)
        /// Cancelled, or the reader stopped without error. The reader has closed its descriptors.
        case ended
    }

    struct State {
        var pending = PendingChanges()
        var waiter: CheckedContinuation<Delivery, Never>?
        var cancelled = false
        /// The reader has closed its descriptors and will not publish again.
        var readerFinished = false
        var failure: FileWatchError?
        /// The reader's eventfd, present only while it is open: writing to it is safe under the lock.
        var wakeDescriptor: CInt?
    }

    private let state = Mutex(State())

    // MARK: Consumer side

    /// Takes the pending changes now, or stores `waiter` to be resumed by the reader.
    /// After cancellation, the waiter is resumed with `.ended` only once the reader has closed its descriptors.
    func takeOrWait(_ waiter: CheckedContinuation<Delivery, Never>) {
        let immediate: Delivery? = state.withLock { state in
            if state.cancelled {
                if state.readerFinished { return .ended }
            } else if !state.pending.isEmpty {
                let taken = state.pending
                state.pending = PendingChanges()
                // The reader stops reading while changes are pending; let it continue.
                if let wakeDescriptor = state.wakeDescriptor { Inotify.wake(descriptor: wakeDescriptor) }
                return .changes(taken)
            } else if state.readerFinished {
                return state.failure.map(Delivery.failed) ?? .ended
            }
            precondition(state.waiter == nil, "a DirectoryWatch iterator was used from two tasks at once")
            state.waiter = waiter
            return nil
        }
        if let immediate { waiter.resume(returning: immediate) }
    }

    /// Ends the watch: the reader is woken, stops and closes its descriptors, then resumes any waiter.
    /// Idempotent; safe from any thread, including a cancellation handler.
    func cancel() {
        state.withLock { state in
            guard !state.cancelled else { return }
            state.cancelled = true
            state.pending = PendingChanges()
            if let wakeDescriptor = state.wakeDescriptor { Inotify.wake(descriptor: wakeDescriptor) }
        }
    }

    // MARK: Reader side

    /// Publishes the reader's eventfd. Returns `false` if the watch was cancelled before the reader started.
    func registerWakeDescriptor(_ descriptor: CInt) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.wakeDescriptor = descriptor
            return true
        }
    }

    /// Whether the reader should stop, and whether changes are still waiting for the consumer.
    func readerStatus() -> (cancelled: Bool, hasPending: Bool) {
        state.withLock { ($0.cancelled, !$0.pending.isEmpty) }
    }

    /// Merges `changes` into the pending state and hands everything to a waiting consumer, if any.
    func publish(_ changes: PendingChanges) {
        guard !changes.isEmpty else { return }
        let handOff: (CheckedContinuation<Delivery, Never>, PendingChanges)? = state.withLock { state in
            guard !state.cancelled else { return nil }
            state.pending.merge(changes)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            let taken = state.pending
            state.pending = PendingChanges()
            return (waiter, taken)
        }
        if let (waiter, taken) = handOff { waiter.resume(returning: .changes(taken)) }
    }

    /// Withdraws the eventfd before the reader closes its descriptors; nobody signals it afterwards.
    func withdrawWakeDescriptor() {
        state.withLock { $0.wakeDescriptor = nil }
    }

    /// Records that the reader has closed its descriptors and stopped, with `failure` if it stopped on an error.
    func finishReader(failure: FileWatchError?) {
        let handOff: (CheckedContinuation<Delivery, Never>, Delivery)? = state.withLock { state in
            state.readerFinished = true
            state.failure = failure
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            if state.cancelled { return (waiter, .ended) }
            if !state.pending.isEmpty {
                let taken = state.pending
                state.pending = PendingChanges()
                return (waiter, .changes(taken))
            }
            return (waiter, failure.map(Delivery.failed) ?? .ended)
        }
        if let (waiter, delivery) = handOff { waiter.resume(returning: delivery) }
    }
}
