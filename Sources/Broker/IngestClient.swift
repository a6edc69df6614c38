import EntitlementModel
import FileWatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SharedDefaults

/// What `entitlementctl ingest` does: validate every line, queue them durably as one inbox file,
/// and optionally wait until the daemon has published a generation that includes them.
public struct IngestClient: Sendable {
    public let layout: ContainerLayout
    public let catalog: Catalog

    public init(layout: ContainerLayout, catalog: Catalog) {
        self.layout = layout
        self.catalog = catalog
    }

    /// Validates all `lines` (blank lines skipped) before queueing any: one bad line refuses the
    /// whole input with ``BrokerError/badInput(_:)`` naming `source:line`. Returns the inbox file
    /// name once the events are durable (fsynced file and directory).
    public func enqueue(_ lines: [String], source: String) throws(BrokerError) -> String? {
        let kept = try EventLine.decodeAll(lines, source: source, catalog: catalog).map(\.line)
        guard !kept.isEmpty else { return nil }
        return try Inbox(directory: layout.inboxDirectory).enqueue(kept)
    }

    /// Whether a daemon holds the container.
    public var isDaemonRunning: Bool { DaemonLock.isHeld(path: layout.daemonLockPath) }

    /// Waits until the daemon has taken `ticket` out of the inbox (it deletes a file only after
    /// journaling it and publishing the result), then returns the published generation.
    /// Throws ``BrokerError/unavailable(_:)`` when no daemon runs (the events stay queued) and
    /// ``BrokerError/timedOut(_:)`` after `timeout` seconds.
    public func waitUntilPublished(_ ticket: String, timeout: Double) async throws(BrokerError) -> Int64? {
        let inbox = Inbox(directory: layout.inboxDirectory)
        let deadline = Date().addingTimeInterval(timeout)
        let watch = DirectoryWatch(directory: layout.inboxDirectory, names: [ticket])
        do {
            let done: Bool = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for try await _ in watch where !inbox.contains(ticket) { return true }
                    return false
                }
                group.addTask {
                    // Re-checks liveness every 200 ms: a daemon that dies mid-wait is reported, not waited for.
                    while Date() < deadline {
                        if !inbox.contains(ticket) { return true }
                        if !DaemonLock.isHeld(path: layout.daemonLockPath) { return !inbox.contains(ticket) }
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    return !inbox.contains(ticket)
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            if !done {
                if !isDaemonRunning {
                    throw BrokerError.unavailable("events queued in \(layout.inboxDirectory), but no entitlementd holds \(layout.container)")
                }
                throw BrokerError.timedOut("events queued, but not published within \(timeout) s")
            }
        } catch let error as BrokerError {
            throw error
        } catch {
            throw .unavailable("waiting for entitlementd: \(error)")
        }
        return SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot?.generation
    }
}
