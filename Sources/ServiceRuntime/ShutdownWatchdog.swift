import Synchronization
import SystemShims

/// The thread that keeps a ``ServiceLoop``'s shutdown deadline: it hands on the signals the relay
/// brings while the loop's thread is busy with an event, and once the first stop signal has
/// arrived, ends the process if the loop has not ended within the deadline (one line on stderr,
/// written directly, taking no lock the stuck thread may hold; status 75).
///
/// It waits in `poll` on the signal relay and an event counter of its own, which ``end()``
/// signals; it closes the counter itself, once nothing can signal it any more.
final class ShutdownWatchdog: Sendable {
    private struct State {
        var stop: (signal: UnixSignal, at: ContinuousClock.Instant)?
        var ended = false
        /// The thread has taken the end and closes its counter: nobody may signal it now.
        var closing = false
    }

    private let state = Mutex(State())
    private let wake: CInt
    private let finished = MonotonicWakeup()
    private let name: String
    private let deadline: Duration
    /// The signal relay's read end (``SignalRelay/prepare()``).
    private let relay: CInt

    /// Starts the thread.
    /// - Throws: the `errno` of `eventfd` or `pthread_create`.
    init(name: String, deadline: Duration, relay: CInt) throws(Errno) {
        self.name = name
        self.deadline = deadline
        self.relay = relay
        wake = try FileDescriptor.makeEventCounter().release()
        do {
            try DetachedThread.start { [self] in watch() }
        } catch {
            _ = try? FileDescriptor(adopting: wake).close()
            throw error
        }
    }

    /// The first stop signal has arrived: the deadline runs from now.
    func stopRequested(_ signal: UnixSignal) {
        state.withLock { state in
            guard state.stop == nil, !state.closing else { return }
            state.stop = (signal, ContinuousClock.now)
            FileDescriptor.signalEventCounter(wake)
        }
    }

    /// The loop has ended: stops the thread and waits (a few seconds at most) until it has.
    func end() {
        state.withLock { state in
            state.ended = true
            if !state.closing { FileDescriptor.signalEventCounter(wake) }
        }
        _ = finished.wait(timeoutSeconds: 5)
    }

    private func watch() {
        while true {
            let (stop, ended) = state.withLock { state in
                if state.ended { state.closing = true }
                return (state.stop, state.ended)
            }
            if ended { break }
            var timeout: CInt = -1
            if let stop {
                let left = (stop.at + deadline - ContinuousClock.now).components
                let milliseconds = left.seconds * 1000 + (left.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                if milliseconds <= 0 { expire(stop.signal) }
                timeout = CInt(clamping: milliseconds)
            }
            guard let ready = try? FileDescriptor.waitForInput(wake, relay, timeoutMilliseconds: timeout) else { continue }
            if ready.first { FileDescriptor.withUnowned(wake) { (counter: borrowing FileDescriptor) in counter.drainEventCounter() } }
            if ready.second { SignalRelay.deliverPending() }
        }
        _ = try? FileDescriptor(adopting: wake).close()
        finished.signal()
    }

    private func expire(_ signal: UnixSignal) -> Never {
        let line = "\(name): \(signal): the work in hand did not finish within \(Self.format(deadline)) s;"
            + " exiting with status \(ServiceLoop.shutdownDeadlineExitCode)\n"
        FileDescriptor.withUnowned(FileDescriptor.standardError) { (standardError: borrowing FileDescriptor) in
            try? standardError.writeAll(line.utf8)
        }
        ProcessExit.immediately(status: ServiceLoop.shutdownDeadlineExitCode)
    }

    /// Seconds with at most three decimals (`30`, `0.25`).
    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
    }
}
