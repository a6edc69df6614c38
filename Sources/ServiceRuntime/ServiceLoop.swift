import Glibc
import SystemShims

/// The event loop of a long-running service (the daemon, a follower), in the manner of
/// swift-service-lifecycle: one `run` that lasts as long as the service, structured tasks for
/// its sources, and a graceful shutdown with a deadline.
///
/// What wakes the handler: the signals given (a stop signal ends the loop), the
/// ``ServiceLoopSource``s (directory changes), and the deadline the handler's last
/// ``ServiceLoopStep`` named. The handler runs on a thread of its own, never on the
/// cooperative pool, so its blocking work (fsync, reading and writing files) holds no task
/// executor; sources and signals are child tasks of `run` and end with it.
///
/// Shutdown: the first stop signal is handed to the handler as soon as the event in hand is
/// finished, and the loop ends after it. If that takes longer than ``shutdownDeadline`` (a
/// write stuck on a dying disk), the process logs one line and exits with
/// ``shutdownDeadlineExitCode`` at once, without running anything else.
public struct ServiceLoop: Sendable {
    /// Signals that end the loop (after the event in hand).
    public var stopSignals: [UnixSignal]
    /// Other signals delivered to the handler as ``ServiceLoopEvent/signal(_:)``.
    public var signals: [UnixSignal]
    /// How long after a stop signal the handler may take to finish before the process exits.
    public var shutdownDeadline: Duration
    /// Receives the one line written when the shutdown deadline passes.
    public var log: @Sendable (String) -> Void

    /// The exit status when the shutdown deadline passes: 75, temporarily failing (what was
    /// being done is not lost: it is done again at the next start).
    public static let shutdownDeadlineExitCode: Int32 = 75

    public init(
        stopSignals: [UnixSignal] = [.terminate, .interrupt], signals: [UnixSignal] = [], shutdownDeadline: Duration = .seconds(30),
        log: @escaping @Sendable (String) -> Void
    ) {
        self.stopSignals = stopSignals
        self.signals = signals
        self.shutdownDeadline = shutdownDeadline
        self.log = log
    }

    /// Runs the loop until a stop signal has been handled or the handler returns
    /// ``ServiceLoopStep/stop``; returns the handler, for what it recorded.
    ///
    /// Signals are listened for before anything else, so one sent during start-up is handled
    /// right after it. Then, on the loop's thread, `makeHandler` builds the handler (blocking
    /// start-up work belongs there), which gets ``ServiceLoopEvent/start`` and then every event.
    /// Each source runs as a child task from the start and is cancelled, and waited for, when the
    /// loop ends; the loop's thread has ended, or is ending, when this returns.
    ///
    /// - Throws: what `makeHandler` throws; sources are then stopped as well.
    public func run<Handler: ServiceLoopHandler, Failure: Error>(
        sources: [ServiceLoopSource<Handler.Source>], _ makeHandler: @escaping @Sendable () throws(Failure) -> Handler
    ) async throws(Failure) -> Handler {
        let signalSequence = await SignalSequence.make(stopSignals + signals)
        let mailbox = LoopMailbox<Handler.Source>()
        let result = await withTaskGroup(of: Void.self) { group -> Result<Handler, Failure> in
            group.addTask {
                await forwardSignals(signalSequence, to: mailbox)
            }
            for (index, source) in sources.enumerated() {
                let sink = ServiceLoopSink(mailbox: mailbox, key: index)
                group.addTask { await source.body(sink) }
            }
            let result = await withCheckedContinuation { (finished: CheckedContinuation<Result<Handler, Failure>, Never>) in
                let loop: @Sendable () -> Void = {
                    finished.resume(returning: Self.serve(mailbox, makeHandler))
                }
                // Without a thread to spare (EAGAIN) the loop still runs, on the calling task.
                do { try DetachedThread.start(loop) } catch { loop() }
            }
            group.cancelAll()
            return result
        }
        return try result.get()
    }

    /// The loop's thread: builds the handler and feeds it events until it or a stop signal ends it.
    private static func serve<Handler: ServiceLoopHandler, Failure: Error>(
        _ mailbox: LoopMailbox<Handler.Source>, _ makeHandler: () throws(Failure) -> Handler
    ) -> Result<Handler, Failure> {
        var handler: Handler
        do throws(Failure) { handler = try makeHandler() } catch { return .failure(error) }
        var step = handler.handle(.start)
        while case .wait(let deadline) = step {
            let event = mailbox.take(deadline: deadline)
            step = handler.handle(event)
            if case .stop = event { break }
        }
        return .success(handler)
    }

    /// Hands signals to the mailbox; after the first stop signal, waits out the shutdown
    /// deadline and ends the process if the loop has not ended (cancelled) by then.
    private func forwardSignals<Source>(_ sequence: SignalSequence, to mailbox: LoopMailbox<Source>) async {
        for await signal in sequence {
            guard stopSignals.contains(signal) else {
                mailbox.post(.signal(signal))
                continue
            }
            guard mailbox.requestStop(signal) else { continue }
            do { try await Task.sleep(for: shutdownDeadline) } catch { return }
            log("\(signal): the work in hand did not finish within \(Self.format(shutdownDeadline)) s; exiting with status \(Self.shutdownDeadlineExitCode)")
            _exit(Self.shutdownDeadlineExitCode)
        }
    }

    /// Seconds with at most three decimals (`30`, `0.25`).
    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
    }
}
