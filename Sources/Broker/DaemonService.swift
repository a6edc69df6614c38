import EntitlementDefaults
import FileWatch
import FoundationEssentials
import ServiceRuntime
import SystemShims

/// What ``EntitlementDaemon`` does on each event of its ``ServiceLoop``, on the loop's thread:
/// check the lock, drain and publish (``RetryingWork``), reload the catalog, follow the watch
/// link, and tell systemd.
struct DaemonService: ServiceLoopHandler {
    enum Source: Sendable {
        /// Something arrived in (or left) the inbox.
        case inbox
        /// Something changed in `Library/Broker`: the lock file.
        case broker(FileWatchEvent)
        /// A directory watch failed and fell back to polling; the line to log.
        case watchFailed(String)
        /// An authenticated exchange with the companion happened (at most one a second).
        case companionSynced
    }

    /// Longest the daemon waits between evaluations, in seconds, so a wall clock that jumps
    /// forward is noticed within this long.
    static let maximumSleep: Double = 60

    private let configuration: DaemonConfiguration
    private let lock: FileLock
    private let core: DaemonCore
    private var work: RetryingWork
    private let systemd: SystemdNotifier
    /// Whether READY=1 was sent: after the first successful publish.
    private var ready = false
    /// Why the daemon stopped on its own: its lock file is gone or replaced.
    private var lockLost: BrokerError?
    /// The companion link, when configured.
    private let link: CompanionLinkSource?
    private let channel: CompanionChannel?
    /// The outbox's length when the link was last woken for it.
    private var offeredCount: UInt64 = 0

    /// Prepares the container, takes its lock, loads the catalog and replays the journal.
    /// - Throws: ``BrokerError/busy(_:)`` when another daemon holds the container, or what
    ///   loading refused; the lock is released again if it was taken.
    init(configuration: DaemonConfiguration, link: CompanionLinkSource? = nil) throws(BrokerError) {
        self.configuration = configuration
        let layout = configuration.layout
        // A pairing key anyone else could read is refused before anything is touched.
        let pairingKey = try configuration.companion.map { companion throws(BrokerError) in
            try PairingKeyFile.load(path: companion.pairingKeyPath)
        }
        try ContainerDirectories.prepare(layout)
        // The analytics directory is the daemon's group's (2770), so the app's processes append too.
        do { try PaywallAnalyticsLog(container: layout.container).prepareDirectory() } catch {
            configuration.log("paywall analytics: \(error)")
        }
        lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
        do {
            core = try DaemonCore(configuration: configuration)
        } catch {
            try? lock.unlock()
            throw error
        }
        work = RetryingWork(core: core, log: configuration.log)
        systemd = SystemdNotifier(log: configuration.log)
        self.link = link
        if let companion = configuration.companion, let pairingKey, let outbox = core.outbox, let link {
            do {
                let channel = try CompanionChannel(
                    configuration: companion, pairingKey: pairingKey, layout: layout, outbox: outbox,
                    positions: CompanionPositions.load(path: layout.companionPositionsPath), signatures: core.catalog.signatures,
                    log: configuration.log)
                try link.start(channel)
                outbox.onAppend { channel.wake() }
                self.channel = channel
                offeredCount = outbox.count
            } catch {
                try? lock.unlock()
                throw error
            }
        } else {
            channel = nil
        }
    }

    mutating func handle(_ event: ServiceLoopEvent<Source>) -> ServiceLoopStep {
        let layout = configuration.layout
        if case .start = event {
            // The start-up publish and the drain of what was queued while no daemon ran: a
            // failure here (a full disk) is retried like any other, and READY=1 waits for the
            // first publish.
            work.run()
            wakeLinkForNewEvents()
            reportReadiness(reloaded: false)
            return next()
        }
        if let lost = DaemonLock.loss(of: lock, path: layout.daemonLockPath, container: layout.container) {
            lockLost = lost
            systemd.stopping()
            return .stop
        }
        // A reload is reported done (READY=1) after the work below, whether it succeeded or not.
        var reloaded = false
        switch event {
        case .start, .deadline:
            break
        case .source(.inbox):
            work.inboxChanged()
        case .source(.broker(let change)):
            // The lock was checked above; nothing else of `Library/Broker` is watched.
            _ = change
        case .source(.watchFailed(let message)):
            configuration.log(message)
        case .source(.companionSynced):
            if let synced = channel?.lastSync { core.noteCompanionSync(at: synced) }
        case .signal:
            systemd.reloading()
            reloaded = true
            core.reloadCatalog()
            channel?.setSignatures(core.catalog.signatures)
        case .stop(let signal):
            configuration.log("\(signal): stopping")
            systemd.stopping()
            return .stop
        }
        work.run()
        wakeLinkForNewEvents()
        reportReadiness(reloaded: reloaded)
        return next()
    }

    /// Tells the link's thread that the drain offered the companion more events.
    private mutating func wakeLinkForNewEvents() {
        guard let channel, let count = core.outbox?.count, count != offeredCount else { return }
        offeredCount = count
        channel.wake()
    }

    /// READY=1 after the first successful publish, and after each reload once ready.
    private mutating func reportReadiness(reloaded: Bool) {
        if reloaded && ready { systemd.ready() }
        if !ready && work.hasPublished {
            ready = true
            systemd.ready()
        }
    }

    /// Wait for the next event, or until the retry or transition is due (just after it), or at
    /// most ``maximumSleep``.
    private func next() -> ServiceLoopStep {
        let delay = min(Self.maximumSleep, max(0, (work.secondsUntilDue ?? Self.maximumSleep) + 0.001))
        return .wait(until: Date().addingTimeInterval(delay))
    }

    /// Releases the lock, then throws ``BrokerError/lockLost(_:)`` if that ended the loop, or
    /// logs that the daemon stopped.
    func finish() throws(BrokerError) {
        link?.stop()
        try? lock.unlock()
        if let lockLost { throw lockLost }
        configuration.log("stopped")
    }
}
