import Synchronization
import SystemShims

/// Signals delivered to this process, as an `AsyncSequence`, for code that awaits them rather
/// than running a ``ServiceLoop`` (the demo).
///
/// A thread of its own waits in `poll` on the process's signal relay (``SignalRelay``), as a
/// loop's thread does, and feeds an `AsyncStream`. ``make(_:)`` returns once the signals are
/// listened for, so a signal sent after it returns is never lost. Cancelling the consuming task
/// or dropping the sequence stops listening and ends the thread.
package struct SignalSequence: AsyncSequence, Sendable {
    package typealias Element = UnixSignal

    private let stream: AsyncStream<UnixSignal>

    private init(stream: AsyncStream<UnixSignal>) { self.stream = stream }

    /// Starts listening for `signals`.
    /// - Throws: the `errno` of `pipe2`, `eventfd` or `pthread_create` (`EMFILE`, `EAGAIN`).
    package static func make(_ signals: [UnixSignal]) throws(Errno) -> SignalSequence {
        let (stream, continuation) = AsyncStream.makeStream(of: UnixSignal.self, bufferingPolicy: .unbounded)
        let relay = try SignalRelay.prepare()
        let reader = try RelayReader(relay: relay)
        let listener: SignalListener
        do {
            listener = try SignalListener.listen(signals.map { SignalNumber(rawValue: $0.rawValue) }) { number in
                continuation.yield(UnixSignal(rawValue: number.rawValue))
            }
        } catch {
            reader.end()
            throw error
        }
        continuation.onTermination = { _ in
            listener.stop()
            reader.end()
        }
        return SignalSequence(stream: stream)
    }

    package func makeAsyncIterator() -> AsyncStream<UnixSignal>.AsyncIterator { stream.makeAsyncIterator() }
}

/// The thread that reads the signal relay for a ``SignalSequence`` until ``end()``.
private final class RelayReader: Sendable {
    private let wake: CInt
    /// Set (under the lock) once the thread closes `wake`: nobody may signal it then.
    private let closed = Mutex(false)
    private let ended = Atomic(false)

    init(relay: CInt) throws(Errno) {
        wake = try FileDescriptor.makeEventCounter().release()
        do {
            try DetachedThread.start { [self] in read(relay) }
        } catch {
            _ = try? FileDescriptor(adopting: wake).close()
            throw error
        }
    }

    func end() {
        ended.store(true, ordering: .releasing)
        closed.withLock { closed in if !closed { FileDescriptor.signalEventCounter(wake) } }
    }

    private func read(_ relay: CInt) {
        while !ended.load(ordering: .acquiring) {
            guard let ready = try? FileDescriptor.waitForInput(wake, relay, timeoutMilliseconds: -1) else { continue }
            if ready.second { SignalRelay.deliverPending() }
        }
        closed.withLock { $0 = true }
        _ = try? FileDescriptor(adopting: wake).close()
    }
}
