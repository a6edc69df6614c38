import EntitlementModel
import FileWatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServiceRuntime
import SystemShims

/// The single writer of a container: holds its lock, drains the inbox into the journal,
/// publishes snapshots on every change and at every transition time, and stops cleanly.
///
/// Lifecycle: ``run()`` returns normally after SIGTERM or SIGINT, once the event in hand is
/// finished; SIGHUP reloads the catalog. It throws ``BrokerError/busy(_:)`` when another
/// daemon holds the container, and other ``BrokerError``s when it cannot start.
public struct EntitlementDaemon: Sendable {
    public let configuration: DaemonConfiguration

    public init(configuration: DaemonConfiguration) { self.configuration = configuration }

    private enum Wakeup: Sendable {
        case inbox, transition, watchLink
        case signal(UnixSignal)
        case watcherFailed(String)
    }

    /// Longest the daemon sleeps between evaluations, so a wall clock that jumps forward is
    /// noticed within this many seconds.
    static let maximumSleep: Double = 60

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
        var next = try core.publish(now: Date(), force: true)
        _ = try core.drainInbox()
        next = try core.publish(now: Date())
        core.watchLinkChanged()
        systemd.ready()

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals { wake.yield(.signal(signal)) }
            }
            let inboxFlag = WakeFlag()
            group.addTask {
                await Self.watch(directory: layout.inboxDirectory, names: nil, wake: wake, as: .inbox, coalescingWith: inboxFlag)
            }
            if configuration.watchContainer != nil {
                group.addTask {
                    await Self.watch(directory: layout.brokerDirectory, names: ["watch-link"], wake: wake, as: .watchLink)
                }
            }
            var timer = Self.scheduleTimer(at: next, wake: wake)
            loop: for await wakeup in wakeups {
                // A reload is reported done (READY=1) after the publish below, whether it succeeded or not.
                var reloading = false
                do {
                    switch wakeup {
                    case .inbox:
                        // Lowered before draining: a file arriving from here on raises it and
                        // queues exactly one more wake-up, however many events it makes.
                        inboxFlag.lower()
                        _ = try core.drainInbox()
                    case .transition:
                        break
                    case .watchLink:
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
                    next = try core.publish(now: Date())
                } catch {
                    // Keep serving: the inbox files stay queued and the publish is retried within a second.
                    log("error: \(error); retrying in 1 s")
                    next = min(next ?? .distantFuture, Date().addingTimeInterval(1))
                }
                if reloading { systemd.ready() }
                timer.cancel()
                timer = Self.scheduleTimer(at: next, wake: wake)
            }
            timer.cancel()
            wake.finish()
            group.cancelAll()
        }
        log("stopped")
    }

    /// Wakes the loop at `date` (or after ``maximumSleep``, whichever is first).
    private static func scheduleTimer(at date: Date?, wake: AsyncStream<Wakeup>.Continuation) -> Task<Void, Never> {
        let delay = min(maximumSleep, max(0, (date ?? .distantFuture).timeIntervalSinceNow + 0.001))
        return Task {
            do { try await Task.sleep(for: .seconds(delay)) } catch { return }
            wake.yield(.transition)
        }
    }

    /// Forwards every change in `directory` as `wakeup`; if inotify fails (watch limits), says so
    /// and falls back to checking every 250 ms, which still works.
    /// With `flag`, an event is forwarded only while the flag is down (and raises it), so a burst
    /// of events becomes one queued wake-up and one drain takes everything queued.
    private static func watch(
        directory: String, names: Set<String>?, wake: AsyncStream<Wakeup>.Continuation, as wakeup: Wakeup,
        coalescingWith flag: WakeFlag? = nil
    ) async {
        await DirectoryWatch(directory: directory, names: names).forEachEvent(
            onFailure: { error in wake.yield(.watcherFailed("watch \(directory): \(error); falling back to polling every 250 ms")) },
            { _ in
                if let flag, !flag.raise() { return }
                wake.yield(wakeup)
            })
    }
}
