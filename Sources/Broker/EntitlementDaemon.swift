import EntitlementDefaults
import Entitlements
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
/// state), ``BrokerError/insufficientResources(_:)`` when `RLIMIT_NOFILE` allows fewer than
/// the descriptors it needs (checked first, before any thread starts), and
/// ``BrokerError/lockLost(_:)`` as soon as its lock file is removed or replaced (the container
/// deleted or moved under it), so that a restart, not a second writer, serves the path.
/// A failing publish or drain (disk full, I/O errors), the first publish included, never ends
/// it: see ``RetryingWork``. If the event in hand is still not finished ``shutdownDeadline``
/// after a stop signal (a write stuck on a dying disk), the process writes one line to stderr
/// and exits 75;
/// what was in hand stays queued for the next start.
public struct EntitlementDaemon: Sendable {
    /// What the daemon serves and where it logs.
    public let configuration: DaemonConfiguration

    /// A daemon for `configuration`. Nothing is opened until ``run()``.
    public init(configuration: DaemonConfiguration) { self.configuration = configuration }

    /// How long a stop may take before the process exits without finishing it.
    public static let shutdownDeadline: Duration = .seconds(30)

    /// Serves the container until SIGTERM or SIGINT (see the type's discussion for what it throws).
    /// At most one daemon per container runs: a second one throws ``BrokerError/busy(_:)`` at once.
    /// Runs on the calling thread, which it blocks (see ``ServiceLoop``).
    public func run() throws(BrokerError) {
        // Before any thread or runtime descriptor exists: too few descriptors is one line, not a crash.
        _ = try DaemonDescriptors.reserve()
        let configuration = configuration
        let layout = configuration.layout
        // The lock file's removal (the container deleted under the daemon) is noticed within
        // the watch's latency; the lock is also checked at every wake-up, before any write.
        let brokerNames: Set = [ContainerLayout.daemonLockName]
        let link = configuration.companion.map { _ in CompanionLinkSource() }
        var sources: [ServiceLoopSource<DaemonService.Source>] = [
            // A burst of inbox files is one queued wake-up, and one drain takes everything queued.
            // A writer's temporary file wakes nothing, nor does a file leaving (the daemon's own
            // deletions): the drain would find nothing new queued.
            .directory(
                layout.inboxDirectory, reporting: Inbox.isQueuedName, arrivalsOnly: true, coalescing: true,
                onFailure: { .watchFailed(Self.fallbackMessage(layout.inboxDirectory, $0)) }
            ) { _ in .inbox },
            .directory(layout.brokerDirectory, names: brokerNames, onFailure: { .watchFailed(Self.fallbackMessage(layout.brokerDirectory, $0)) }) { .broker($0) },
        ]
        if let link { sources.append(link.source) }
        let loop = ServiceLoop(name: "entitlementd", signals: [.hangup], shutdownDeadline: Self.shutdownDeadline)
        let service = try loop.run(sources: sources) { () throws(BrokerError) in try DaemonService(configuration: configuration, link: link) }
        try service.finish()
    }

    private static func fallbackMessage(_ directory: String, _ error: FileWatchError) -> String {
        "watch \(directory): \(error); falling back to polling every 250 ms"
    }
}
