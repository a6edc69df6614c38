import FileWatch
import FoundationEssentials
import SystemShims

/// The event loop of a long-running service (the daemon, a follower, `ingest --wait`), in the
/// manner of swift-service-lifecycle: one `run` that lasts as long as the service, its sources
/// stopped when it ends, and a graceful shutdown with a deadline.
///
/// What wakes the handler: the signals given (a stop signal ends the loop), the
/// ``ServiceLoopSource``s (directory changes, standard output's reader leaving, posts from other
/// threads), and the deadline the handler's last ``ServiceLoopStep`` named. The loop runs on the
/// thread that calls ``run(sources:_:)``, which it blocks: it waits in `poll(2)` on its own
/// descriptors (the process's signal relay, one inotify instance for all its directory sources,
/// an event counter for posts from other threads) and hands the handler each event there. It
/// starts no task and no executor; its one thread of its own waits for signals to keep the
/// shutdown deadline. Call it from a thread that may block for the service's life: a tool's main
/// thread, or a thread of its own, never a thread of Swift's cooperative pool.
///
/// Shutdown: the first stop signal is handed to the handler as soon as the event in hand is
/// finished, and the loop ends after it. If that takes longer than ``shutdownDeadline`` (a
/// write stuck on a dying disk or a full pipe), the process writes one line to stderr (directly,
/// taking no lock the stuck thread may hold) and exits with ``shutdownDeadlineExitCode`` at
/// once, without running anything else.
public struct ServiceLoop: Sendable {
    /// Signals that end the loop (after the event in hand).
    public var stopSignals: [UnixSignal]
    /// Other signals delivered to the handler as ``ServiceLoopEvent/signal(_:)``.
    public var signals: [UnixSignal]
    /// How long after a stop signal the handler may take to finish before the process exits.
    public var shutdownDeadline: Duration
    /// The program's name, which begins the line written when the shutdown deadline passes.
    public var name: String

    /// The exit status when the shutdown deadline passes, or when the loop cannot make its own
    /// descriptors: 75, temporarily failing (what was being done is not lost: it is done again at
    /// the next start).
    public static let shutdownDeadlineExitCode: Int32 = 75

    /// How often a directory source whose watch failed posts "re-read everything".
    static let fallbackPollMilliseconds: UInt64 = 250

    public init(
        name: String, stopSignals: [UnixSignal] = [.terminate, .interrupt], signals: [UnixSignal] = [],
        shutdownDeadline: Duration = .seconds(30)
    ) {
        self.name = name
        self.stopSignals = stopSignals
        self.signals = signals
        self.shutdownDeadline = shutdownDeadline
    }

    /// Runs the loop on the calling thread until a stop signal has been handled or the handler
    /// returns ``ServiceLoopStep/stop``; returns the handler, for what it recorded.
    ///
    /// Signals are listened for and directories watched before anything else, so a signal sent or
    /// a file changed during start-up is handled right after it. Then `makeHandler` builds the
    /// handler (blocking start-up work belongs there), which gets ``ServiceLoopEvent/start`` and
    /// then every event. Every source is stopped, and the signals' previous dispositions are back,
    /// when this returns. A loop that cannot make its own descriptors (`EMFILE`) writes one line
    /// to stderr and ends the process with ``shutdownDeadlineExitCode`` before anything is done.
    ///
    /// - Throws: what `makeHandler` throws; sources are then stopped as well.
    public func run<Handler: ServiceLoopHandler, Failure: Error>(
        sources: [ServiceLoopSource<Handler.Source>], _ makeHandler: () throws(Failure) -> Handler
    ) throws(Failure) -> Handler {
        let mailbox: LoopMailbox<Handler.Source>
        let relay: CInt
        do throws(Errno) {
            mailbox = try LoopMailbox()
            relay = try SignalRelay.prepare()
        } catch {
            cannotStart(error)
        }
        // Without a thread to spare (EAGAIN) the loop still runs, and reads the signals itself;
        // only the shutdown deadline is not kept then.
        let watchdog = try? ShutdownWatchdog(name: name, deadline: shutdownDeadline, relay: relay)
        let stopSignals = stopSignals
        let listener: SignalListener
        do throws(Errno) {
            listener = try SignalListener.listen((stopSignals + signals).map { SignalNumber(rawValue: $0.rawValue) }) { number in
                let signal = UnixSignal(rawValue: number.rawValue)
                guard stopSignals.contains(signal) else { return mailbox.post(.signal(signal)) }
                if mailbox.requestStop(signal) { watchdog?.stopRequested(signal) }
            }
        } catch {
            cannotStart(error)
        }
        var descriptors = LoopDescriptors(sources: sources, mailbox: mailbox, relay: relay)
        // By index, as `LoopDescriptors` reads them.
        for index in sources.indices {
            if case .attached(let start, _) = sources[index].kind { start(ServiceLoopSink(mailbox: mailbox, key: index)) }
        }
        defer {
            for source in sources {
                if case .attached(_, let stop) = source.kind { stop() }
            }
            listener.stop()
            watchdog?.end()
        }
        var handler = try makeHandler()
        var step = handler.handle(.start)
        while case .wait(let deadline) = step {
            let event = mailbox.take(deadline: deadline) { timeout in descriptors.wait(timeoutMilliseconds: timeout) }
            step = handler.handle(event)
            if case .stop = event { break }
        }
        return handler
    }

    /// Writes why the loop cannot start and ends the process.
    private func cannotStart(_ error: Errno) -> Never {
        let line = "\(name): cannot start its event loop: \(error)\n"
        FileDescriptor.withUnowned(FileDescriptor.standardError) { (standardError: borrowing FileDescriptor) in
            try? standardError.writeAll(line.utf8)
        }
        ProcessExit.immediately(status: Self.shutdownDeadlineExitCode)
    }
}
