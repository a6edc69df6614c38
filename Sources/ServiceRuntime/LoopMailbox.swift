import FoundationEssentials
import Synchronization
import SystemShims

/// The queue between a ``ServiceLoop``'s sources (any thread or task) and its one consumer, the
/// loop's thread, which blocks in ``take(deadline:)`` until an event is queued or its deadline
/// comes.
///
/// Ordering: a stop signal goes ahead of everything queued; otherwise first in, first out. A
/// coalescing post is dropped while an earlier one from the same source is still queued, so a
/// burst queues one event and the handler, acting on it, takes everything the burst brought.
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
        /// The consumer is (about to be) blocked on `wakeup` and needs a signal for the next post.
        var consumerWaiting = false

        /// Whether the consumer waits for a signal (it gets exactly one).
        mutating func takeWaitingConsumer() -> Bool {
            defer { consumerWaiting = false }
            return consumerWaiting
        }
    }

    private let state = Mutex(State())
    /// Waited for on the monotonic clock, so a wall clock set back cannot lengthen a wait.
    private let wakeup = MonotonicWakeup()

    /// Longest the consumer blocks before it looks at the wall clock again, so that a clock
    /// that jumps forward brings a deadline within this long.
    static var maximumBlock: Double { 60 }

    /// Queues `event`; with `coalescingKey`, not if an event with that key is still queued.
    func post(_ event: ServiceLoopEvent<Source>, coalescingKey: Int? = nil) {
        let wake = state.withLock { state -> Bool in
            if let coalescingKey, state.queue.contains(where: { $0.coalescingKey == coalescingKey }) { return false }
            state.queue.append(Entry(event: event, coalescingKey: coalescingKey))
            return state.takeWaitingConsumer()
        }
        if wake { wakeup.signal() }
    }

    /// Records a stop signal; returns `true` for the first one (later ones change nothing).
    @discardableResult
    func requestStop(_ signal: UnixSignal) -> Bool {
        let (first, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopRequested else { return (false, false) }
            state.stopRequested = true
            state.stop = signal
            return (true, state.takeWaitingConsumer())
        }
        if wake { wakeup.signal() }
        return first
    }

    /// The next event, blocking the calling thread until there is one: a pending stop first,
    /// then the oldest queued event, then ``ServiceLoopEvent/deadline`` once the wall clock
    /// reaches `deadline`, or once as long has passed as `deadline` was away when the wait
    /// began (by a clock nobody sets back), so a wall clock set back meanwhile cannot hold the
    /// deadline off.
    func take(deadline: Date?) -> ServiceLoopEvent<Source> {
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
            if !wakeup.wait(timeoutSeconds: seconds) {
                // A post that saw the consumer waiting signals once: take that signal now, so
                // the count stays balanced and the next wait blocks.
                let signalled = state.withLock { state -> Bool in
                    defer { state.consumerWaiting = false }
                    return !state.consumerWaiting
                }
                if signalled { _ = wakeup.wait(timeoutSeconds: nil) }
            }
        }
    }
}
