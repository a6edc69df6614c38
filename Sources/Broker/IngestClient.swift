import Entitlements
import FoundationEssentials
import EntitlementDefaults
import FileWatch
import ServiceRuntime
import SharedDefaults
import SystemShims

/// What `entitlementctl ingest` does: validate every line, queue them durably as one inbox file,
/// and optionally wait until the daemon has published a generation that includes them.
public struct IngestClient: Sendable {
    /// The container whose inbox events are queued into.
    public let layout: ContainerLayout
    /// The catalog lines are validated against (environment, bundle id, signatures), as the daemon does.
    public let catalog: Catalog

    /// A client for `layout`'s inbox. Nothing is opened until ``enqueue(_:source:)``.
    public init(layout: ContainerLayout, catalog: Catalog) {
        self.layout = layout
        self.catalog = catalog
    }

    /// Validates all `lines` (blank lines skipped) before queueing any: one bad line refuses the
    /// whole input with ``BrokerError/badInput(_:)`` naming `source:line`. Returns the names of
    /// the inbox files once the events are durable (fsynced files and directory): one file, or
    /// several in order when the events would not fit the one file the daemon reads
    /// (``Inbox/enqueue(splitting:durable:)``); none when there are no events.
    public func enqueue(_ lines: [String], source: String) throws(BrokerError) -> [String] {
        try queue(EventLine.decodeAll(lines, source: source, catalog: catalog).map(\.line), durable: true)
    }

    /// Queues validated lines as inbox files the daemon accepts, durably unless `durable` is
    /// `false` (see ``Inbox/enqueue(splitting:durable:)``); none when there are no lines.
    private func queue(_ kept: [String], durable: Bool) throws(BrokerError) -> [String] {
        guard !kept.isEmpty else { return [] }
        return try Inbox(directory: layout.inboxDirectory).enqueue(splitting: kept, durable: durable)
    }

    /// Whether a daemon holds the container.
    public var isDaemonRunning: Bool { DaemonLock.isHeld(path: layout.daemonLockPath) }

    /// What ``enqueueAndWait(_:source:timeout:)`` came to when it returns.
    package enum QueuedWait: Equatable {
        /// A published generation (when one is readable) includes the events, which the
        /// daemon journaled durably before publishing.
        case published(tickets: [String], generation: Int64?)
        /// A terminating signal arrived while waiting; the events are durably queued.
        case interrupted(tickets: [String], by: SignalNumber)
    }

    /// The signals that end a command-line tool from its terminal or a service manager; while
    /// `ingest --wait` waits they end the wait instead, once the events are durable.
    package static let terminatingSignals: [UnixSignal] = [.hangup, .interrupt, .quit, .terminate]

    /// `ingest --wait`: validates `lines` as ``enqueue(_:source:)`` does, then queues them and
    /// waits until the daemon has taken every file out of the inbox, on a ``ServiceLoop`` run on
    /// the calling thread (the inbox watched through its ``DirectoryWatchSet``, `signals` as its
    /// stop signals). Returns `nil` when there are no events.
    ///
    /// The daemon deletes a file only once a published generation reflects its events; a file it
    /// refused it moves to `rejected/` after writing a ``RefusalRecord``. The file is queued
    /// without fsyncs, so the daemon can read it at once; success needs none, since the daemon
    /// journals (fsync) before it publishes. Every other outcome that leaves the events queued
    /// makes the file durable (``Inbox/makeDurable(_:)``) before it is reported: a timeout, no
    /// daemon, and a signal of `signals` (listened for before the file is queued, so none can end
    /// the process while the file is not durable). A refusal needs nothing: the events are not
    /// queued. A process killed uncatchably (`SIGKILL`) or a power cut while waiting acknowledged
    /// nothing; see ``Inbox`` for what the daemon then finds.
    /// - Throws: what ``enqueue(_:source:)`` throws; ``BrokerError/badInput(_:)`` naming the
    ///   rejected file and the daemon's reason when the daemon refused the events;
    ///   ``BrokerError/unavailable(_:)`` when no daemon runs (the events stay queued) or when the
    ///   inbox itself was removed with the events (the container deleted);
    ///   ``BrokerError/timedOut(_:)`` after `timeout` seconds; ``BrokerError/io(path:operation:errno:)``
    ///   instead when making the file durable fails.
    package func enqueueAndWait(
        _ lines: [String], source: String, timeout: Double, signals: [UnixSignal] = terminatingSignals
    ) throws(BrokerError) -> QueuedWait? {
        let kept = try EventLine.decodeAll(lines, source: source, catalog: catalog).map(\.line)
        guard !kept.isEmpty else { return nil }
        let seconds = timeout.isNaN ? 0 : min(max(timeout, 0), 1e9)
        let deadline = Date().addingTimeInterval(seconds)
        let loop = ServiceLoop(name: "entitlementctl ingest", stopSignals: signals)
        // Every change in the inbox is a reason to look again; without inotify the source looks
        // every 250 ms instead.
        let inboxChanged = ServiceLoopSource<IngestWait.Source>.directory(
            layout.inboxDirectory, names: nil, coalescing: true, onFailure: { _ in .inboxChanged }) { _ in .inboxChanged }
        let client = self
        let wait = try loop.run(sources: [inboxChanged]) { () throws(BrokerError) in
            IngestWait(client: client, tickets: try client.queue(kept, durable: false), deadline: deadline, timeout: seconds)
        }
        return try wait.outcome.get()
    }

    /// The wait of ``enqueueAndWait(_:source:timeout:signals:)``, on the loop's thread: one look
    /// at the inbox per event, and one every ``lookInterval`` for a daemon that ended (its lock
    /// cannot be watched).
    private struct IngestWait: ServiceLoopHandler {
        enum Source: Sendable { case inboxChanged }

        /// How often the daemon's lock is looked at between inbox changes.
        static let lookInterval: TimeInterval = 0.2

        let client: IngestClient
        let tickets: [String]
        let deadline: Date
        let timeout: Double
        let inbox: Inbox
        /// The inbox directory's identity when the events were queued, to notice it replaced.
        let inboxIdentity: FileIdentity?
        var waiting: ArraySlice<String>
        var outcome: Result<QueuedWait?, BrokerError> = .success(nil)

        init(client: IngestClient, tickets: [String], deadline: Date, timeout: Double) {
            self.client = client
            self.tickets = tickets
            self.deadline = deadline
            self.timeout = timeout
            inbox = Inbox(directory: client.layout.inboxDirectory)
            inboxIdentity = IngestClient.identity(of: client.layout.inboxDirectory)
            waiting = tickets[...]
        }

        mutating func handle(_ event: ServiceLoopEvent<Source>) -> ServiceLoopStep {
            if case .stop(let signal) = event {
                return finish(.success(.interrupted(tickets: tickets, by: SignalNumber(rawValue: signal.rawValue))), durable: true)
            }
            let pastDeadline = Date() >= deadline
            while let ticket = waiting.first, let result = client.waitOutcome(
                ticket, inbox: inbox, inboxIdentity: inboxIdentity, pastDeadline: pastDeadline, timeout: timeout)
            {
                switch result {
                case .success: waiting.removeFirst()
                case .failure(let error):
                    // Refused events are not queued; every other failure leaves them queued.
                    if case .badInput = error { return finish(.failure(error), durable: false) }
                    return finish(.failure(error), durable: true)
                }
            }
            if waiting.isEmpty {
                let generation = SnapshotReader(suiteName: client.layout.group, container: client.layout.container).refresh().snapshot?.generation
                return finish(.success(.published(tickets: tickets, generation: generation)), durable: false)
            }
            return .wait(until: min(deadline, Date().addingTimeInterval(Self.lookInterval)))
        }

        /// Ends the wait with `result`, the queued files made durable first when `durable`.
        private mutating func finish(_ result: Result<QueuedWait?, BrokerError>, durable: Bool) -> ServiceLoopStep {
            outcome = result
            if durable {
                do throws(BrokerError) { for ticket in tickets { _ = try inbox.makeDurable(ticket) } } catch { outcome = .failure(error) }
            }
            return .stop
        }
    }

    /// What one look at the inbox says about `ticket`: `nil` to keep waiting, success once the
    /// daemon applied it, a failure when it refused it, when the inbox was removed with it, when
    /// no daemon holds the container, or when the deadline passed.
    func waitOutcome(
        _ ticket: String, inbox: Inbox, inboxIdentity: FileIdentity?, pastDeadline: Bool, timeout: Double
    ) -> Result<Void, BrokerError>? {
        if !inbox.contains(ticket) {
            if let reason = RefusalRecord.reason(for: ticket, in: layout.rejectedDirectory) {
                return .failure(.badInput("\(layout.rejectedDirectory)/\(ticket): refused by entitlementd: \(reason)"))
            }
            // The daemon deletes a file from the inbox it holds; a file gone with its inbox
            // (the container deleted, perhaps recreated) was never applied.
            // It also publishes before it deletes: with no readable snapshot the file went with
            // a container being removed, not through the daemon.
            guard inboxIdentity != nil, Self.identity(of: layout.inboxDirectory) == inboxIdentity,
                SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot != nil
            else {
                return .failure(.unavailable("\(layout.inboxDirectory): removed with the queued events before entitlementd applied them"))
            }
            return .success(())
        }
        if !isDaemonRunning {
            // The daemon may have finished with the file between the two looks.
            if !inbox.contains(ticket) {
                return waitOutcome(ticket, inbox: inbox, inboxIdentity: inboxIdentity, pastDeadline: pastDeadline, timeout: timeout)
            }
            return .failure(.unavailable("events queued in \(layout.inboxDirectory), but no entitlementd holds \(layout.container)"))
        }
        if pastDeadline { return .failure(.timedOut("events queued, but not published within \(Self.format(timeout)) s")) }
        return nil
    }

    /// Device and inode of a directory: which directory a path names, to notice it replaced.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of path: String) -> FileIdentity? {
        (try? fileStatus(atPath: path, followSymlinks: false)).map { FileIdentity(device: $0.device, inode: $0.inode) }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
