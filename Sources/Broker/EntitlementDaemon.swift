import EntitlementModel
import FileWatch
import FoundationEssentials
import ServiceRuntime
import SystemShims

/// The single writer of a container: holds its lock, drains the inbox into the journal,
/// publishes snapshots on every change and at every transition time, and stops cleanly.
///
/// Lifecycle: ``run()`` returns normally after SIGTERM or SIGINT, once the event in hand is
/// finished; SIGHUP reloads the catalog. It throws ``BrokerError/busy(_:)`` when another
/// daemon holds the container, other ``BrokerError``s when it cannot start (catalog, journal,
/// state), and
/// ``BrokerError/lockLost(_:)`` as soon as its lock file is removed or replaced (the container
/// deleted or moved under it), so that a restart, not a second writer, serves the path.
/// A failing publish or drain (disk full, I/O errors), the first publish included, never ends
/// it: see ``RetryingWork``.
public struct EntitlementDaemon: Sendable {
    /// What the daemon serves and where it logs.
    public let configuration: DaemonConfiguration

    /// A daemon for `configuration`. Nothing is opened until ``run()``.
    public init(configuration: DaemonConfiguration) { self.configuration = configuration }

    private enum Wakeup: Sendable {
        case inbox, transition
        /// Something changed in `Library/Broker`: the lock file or the watch link.
        case broker(FileWatchEvent)
        case signal(UnixSignal)
        case watcherFailed(String)
    }

    /// Longest the daemon sleeps between evaluations, so a wall clock that jumps forward is
    /// noticed within this many seconds.
    static let maximumSleep: Double = 60

    /// Serves the container until SIGTERM or SIGINT (see the type's discussion for what it throws).
    /// At most one daemon per container runs: a second one throws ``BrokerError/busy(_:)`` at once.
    public func run() async throws(BrokerError) {
        let layout = configuration.layout
        let log = configuration.log
        try ContainerDirectories.prepare(layout)
        let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
        defer { try? lock.unlock() }
        let core = try DaemonCore(configuration: configuration)
        let systemd = SystemdNotifier(log: log)

        let signals = await SignalSequence.make([.terminate, .interrupt, .hangup])
        let (wakeups, wake) = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .unbounded)
        // The start-up publish and the drain of what was queued while no daemon ran: a failure
        // here (a full disk) is retried like any other, and READY=1 waits for the first publish.
        var work = RetryingWork(core: core, log: log)
        work.run()
        core.watchLinkChanged()
        var ready = work.hasPublished
        if ready { systemd.ready() }

        var lockLost: BrokerError?
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals { wake.yield(.signal(signal)) }
            }
            let inboxFlag = WakeFlag()
            group.addTask {
                await Self.watch(directory: layout.inboxDirectory, names: nil, wake: wake, coalescingWith: inboxFlag) { _ in .inbox }
            }
            // The lock file's removal (the container deleted under the daemon) is noticed within
            // the watch's latency; the lock is also checked at every wake-up, before any write.
            var brokerNames: Set = [ContainerLayout.daemonLockName]
            if configuration.watchContainer != nil { brokerNames.insert(ContainerLayout.watchLinkName) }
            group.addTask {
                await Self.watch(directory: layout.brokerDirectory, names: brokerNames, wake: wake) { .broker($0) }
            }
            var timer = Self.scheduleTimer(in: work.secondsUntilDue, wake: wake)
            loop: for await wakeup in wakeups {
                if let lost = DaemonLock.loss(of: lock, path: layout.daemonLockPath, container: layout.container) {
                    lockLost = lost
                    systemd.stopping()
                    break loop
                }
                // A reload is reported done (READY=1) after the work below, whether it succeeded or not.
                var reloading = false
                switch wakeup {
                case .inbox:
                    // Lowered before draining: a file arriving from here on raises it and
                    // queues exactly one more wake-up, however many events it makes.
                    inboxFlag.lower()
                    work.inboxChanged()
                case .transition:
                    break
                case .broker(let event):
                    if case .changed(let names) = event, !names.contains(ContainerLayout.watchLinkName) { break }
                    core.watchLinkChanged()
                case .watcherFailed(let message):
                    log(message)
                case .signal(let signal) where signal == .hangup:
                    systemd.reloading()
                    reloading = true
                    core.reloadCatalog()
                case .signal(let signal):
                    log("\(signal): stopping")
                    systemd.stopping()
                    break loop
                }
                work.run()
                if reloading && ready { systemd.ready() }
                if !ready && work.hasPublished {
                    ready = true
                    systemd.ready()
                }
                timer.cancel()
                timer = Self.scheduleTimer(in: work.secondsUntilDue, wake: wake)
            }
            timer.cancel()
            wake.finish()
            group.cancelAll()
        }
        if let lockLost { throw lockLost }
        log("stopped")
    }

    /// Wakes the loop after `seconds` (or after ``maximumSleep``, whichever is first).
    private static func scheduleTimer(in seconds: Double?, wake: AsyncStream<Wakeup>.Continuation) -> Task<Void, Never> {
        let delay = min(maximumSleep, max(0, (seconds ?? maximumSleep) + 0.001))
        return Task {
            do { try await Task.sleep(for: .seconds(delay)) } catch { return }
            wake.yield(.transition)
        }
    }

    /// Forwards every change in `directory` as the wake-up `wakeup(event)` makes of it; if
    /// inotify fails (watch limits), says so and falls back to checking every 250 ms, which still
    /// works. With `flag`, an event is forwarded only while the flag is down (and raises it), so
    /// a burst of events becomes one queued wake-up and one drain takes everything queued.
    private static func watch(
        directory: String, names: Set<String>?, wake: AsyncStream<Wakeup>.Continuation, coalescingWith flag: WakeFlag? = nil,
        as wakeup: @escaping @Sendable (FileWatchEvent) -> Wakeup
    ) async {
        await DirectoryWatch(directory: directory, names: names).forEachEvent(
            onFailure: { error in wake.yield(.watcherFailed("watch \(directory): \(error); falling back to polling every 250 ms")) },
            { event in
                if let flag, !flag.raise() { return }
                wake.yield(wakeup(event))
            })
    }
}
