import FoundationEssentials
import Synchronization
import SystemShims

/// The queue between a ``ServiceLoop``'s sources (any thread) and its one consumer, the loop's
/// thread, which waits in ``take(deadline:wait:)`` until an event is queued or its deadline comes.
///
/// Ordering: a stop signal goes ahead of everything queued; otherwise first in, first out. A
/// coalescing post is dropped while an earlier one from the same source is still queued, so a
/// burst queues one event and the handler, acting on it, takes everything the burst brought.
///
/// A post from another thread wakes the consumer through an event counter (``wakeDescriptor``),
/// which the consumer polls with its other descriptors, and only while it waits.
final class LoopMailbox<Source: Sendable>: Sendable {
    private struct Entry {
        var event: ServiceLoopEvent<Source>
        /// The posting source, for a coalescing post.
        var coalescingKey: Int?
    }

    private struct State {
        var queue: [Entry] = []
        /// The first stop signal, until it is taken.
        var stop: UnixSignal?
        var stopRequested = false
        /// The consumer is (about to be) waiting and needs a wake-up for the next post.
        var consumerWaiting = false

        /// Whether the consumer waits for a wake-up (it gets exactly one).
        mutating func takeWaitingConsumer() -> Bool {
            defer { consumerWaiting = false }
            return consumerWaiting
        }

        /// Queues `event` unless a coalescing post of the same key is still queued.
        mutating func enqueue(_ event: ServiceLoopEvent<Source>, coalescingKey: Int?) -> Bool {
            if let coalescingKey {
                // A loop rather than `contains(where:)`, which in this generic code would look the
                // array's iterator type up in the binary's conformances at run time.
                for entry in queue where entry.coalescingKey == coalescingKey { return false }
            }
            queue.append(Entry(event: event, coalescingKey: coalescingKey))
            return true
        }
    }

    private let state = Mutex(State())
    /// The event counter a post writes to wake the waiting consumer.
    private let wake: FileDescriptor

    /// Longest the consumer blocks before it looks at the wall clock again, so that a clock
    /// that jumps forward brings a deadline within this long.
    static var maximumBlock: Double { 60 }

    /// - Throws: the `errno` of `eventfd` (`EMFILE`).
    init() throws(Errno) {
        wake = try FileDescriptor.makeEventCounter()
    }

    /// The descriptor the consumer's wait must return for (readable once a post wakes it).
    var wakeDescriptor: CInt { wake.rawValue }

    /// Queues `event`; with `coalescingKey`, not if an event with that key is still queued.
    func post(_ event: ServiceLoopEvent<Source>, coalescingKey: Int? = nil) {
        let wakeUp = state.withLock { state -> Bool in
            state.enqueue(event, coalescingKey: coalescingKey) && state.takeWaitingConsumer()
        }
        if wakeUp { FileDescriptor.signalEventCounter(wake.rawValue) }
    }

    /// ``post(_:coalescingKey:)`` for the consumer's own thread (inside its wait), which needs no wake-up.
    func postFromConsumer(_ event: ServiceLoopEvent<Source>, coalescingKey: Int? = nil) {
        state.withLock { state in _ = state.enqueue(event, coalescingKey: coalescingKey) }
    }

    /// Records a stop signal; returns `true` for the first one (later ones change nothing).
    @discardableResult
    func requestStop(_ signal: UnixSignal) -> Bool {
        let (first, wakeUp) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopRequested else { return (false, false) }
            state.stopRequested = true
            state.stop = signal
            return (true, state.takeWaitingConsumer())
        }
        if wakeUp { FileDescriptor.signalEventCounter(wake.rawValue) }
        return first
    }

    /// The next event: a pending stop first, then the oldest queued event, then
    /// ``ServiceLoopEvent/deadline`` once the wall clock reaches `deadline`, or once as long has
    /// passed as `deadline` was away when the wait began (by a clock nobody sets back), so a wall
    /// clock set back meanwhile cannot hold the deadline off.
    ///
    /// While there is none, calls `wait` with the longest it may block, in milliseconds: it must
    /// return once ``wakeDescriptor`` is readable, and say whether it was; it may post with
    /// ``postFromConsumer(_:coalescingKey:)`` what its other descriptors brought.
    func take(deadline: Date?, wait: (_ timeoutMilliseconds: CInt) -> Bool) -> ServiceLoopEvent<Source> {
        let clock = ContinuousClock()
        let elapsedDeadline = deadline.map { clock.now.advanced(by: .seconds(max(0, $0.timeIntervalSinceNow))) }
        /// Seconds until the deadline comes, by whichever clock brings it first; `nil` without one.
        func secondsLeft() -> Double? {
            guard let deadline, let elapsedDeadline else { return nil }
            let remaining = (elapsedDeadline - clock.now).components
            return min(deadline.timeIntervalSinceNow, Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18)
        }
        while true {
            let next = state.withLock { state -> ServiceLoopEvent<Source>? in
                if let stop = state.stop {
                    state.stop = nil
                    return .stop(stop)
                }
                if !state.queue.isEmpty { return state.queue.removeFirst().event }
                if let left = secondsLeft(), left <= 0 { return .deadline }
                state.consumerWaiting = true
                return nil
            }
            if let next { return next }
            let seconds = min(Self.maximumBlock, secondsLeft() ?? Self.maximumBlock)
            // Rounded up, so a deadline is never woken for early.
            let woken = wait(CInt((seconds * 1000).rounded(.up)))
            state.withLock { $0.consumerWaiting = false }
            // A post that saw the consumer waiting wrote the counter: reset it, so the next wait
            // blocks. A write that lands after this makes one wait return early, and is reset then.
            if woken { wake.drainEventCounter() }
        }
    }
}
