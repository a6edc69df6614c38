import EntitlementModel
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import ServiceRuntime
import SystemShims

/// Delivery of snapshots to the watch's own container with `updateApplicationContext`
/// semantics: only the latest snapshot matters, nothing queues behind it, and while the link is
/// down (the `watch-link` marker file exists) nothing is delivered; when it comes back up the
/// latest snapshot is delivered once.
///
/// Two promises hold while the link is up. A delivery that fails (the watch container read-only
/// or full) is tried again with back-off (``RetryBackoff``, at most ``maximumRetryDelay`` apart)
/// until it succeeds or a newer snapshot replaces it, with no new change needed. And liveness
/// keeps the watch's copy fresh: once the latest snapshot is ``refreshInterval`` old,
/// ``wantsRefresh(now:)`` asks the daemon for a new generation, which is delivered, long before
/// the watch stops trusting its copy (`ReplicaPolicy.maximumAge`, 7 days after `issuedAt`).
final class WatchReplica {
    let container: String
    let linkPath: String
    private let store: SharedDefaults
    private var latest: EntitlementSnapshot?
    private var deliveredGeneration: Int64?
    private var backoff = RetryBackoff(initialDelay: 0.5, maximumDelay: WatchReplica.maximumRetryDelay)
    /// When the failed delivery is due again (monotonic); `nil` while nothing has failed.
    private(set) var retryAt: ContinuousClock.Instant?

    /// How old (after its `issuedAt`) the latest snapshot may get while the link is up before a
    /// fresh one is published for the watch: a day, a seventh of the watch's trust.
    static let refreshInterval: TimeInterval = 86_400
    /// Longest wait between two tries of a failed delivery, in seconds.
    static let maximumRetryDelay: Double = 30

    init(container: String, group: String, linkPath: String, durable: Bool) {
        self.container = container
        self.linkPath = linkPath
        store = SharedDefaults(suiteName: group, container: container, options: .init(durable: durable))
    }

    /// Whether the simulated link to the watch is up.
    var isLinkUp: Bool { (try? fileStatus(atPath: linkPath)) == nil }

    /// A new snapshot was published on the phone: delivered now, unless a failed delivery's
    /// back-off has not run out (then the retry delivers it).
    func offer(_ snapshot: EntitlementSnapshot, log: (String) -> Void) {
        latest = snapshot
        if let retryAt, ContinuousClock.now < retryAt { return }
        deliverIfPossible(log: log)
    }

    /// The link marker changed.
    func linkChanged(log: (String) -> Void) {
        deliverIfPossible(log: log)
    }

    /// Tries a failed delivery again once its back-off has run out.
    func retryIfDue(log: (String) -> Void) {
        guard let retryAt, ContinuousClock.now >= retryAt else { return }
        deliverIfPossible(log: log)
    }

    /// Whether the daemon should publish a new generation at `now` (wall clock) for the watch:
    /// the link is up, nothing is waiting for a retry, and the latest snapshot is
    /// ``refreshInterval`` old.
    func wantsRefresh(now: Date) -> Bool {
        guard let due = refreshDue else { return false }
        return now >= due
    }

    /// When (wall clock) ``wantsRefresh(now:)`` turns true, while the link is up and no delivery
    /// waits for a retry; `nil` otherwise (a link coming up or a retry wakes the daemon).
    var refreshDue: Date? {
        guard retryAt == nil, let latest, isLinkUp else { return nil }
        return latest.issuedAt.addingTimeInterval(Self.refreshInterval)
    }

    private func deliverIfPossible(log: (String) -> Void) {
        guard let latest, deliveredGeneration != latest.generation else {
            retryAt = nil
            return
        }
        guard isLinkUp else {
            // The link coming up delivers it.
            retryAt = nil
            log("watch: link down, holding generation \(latest.generation)")
            return
        }
        do {
            try store.publish(latest)
            deliveredGeneration = latest.generation
            retryAt = nil
            let failures = backoff.succeeded()
            let after = failures == 0 ? "" : " after \(failures) failed \(failures == 1 ? "attempt" : "attempts")"
            log("watch: delivered generation \(latest.generation) to \(container)\(after)")
        } catch {
            let delay = backoff.failed()
            retryAt = ContinuousClock.now.advanced(by: .seconds(delay))
            log(
                "watch: delivery of generation \(latest.generation) to \(container) failed (attempt \(backoff.failures)): \(error);"
                    + " retrying in \(RetryBackoff.format(delay)) s")
        }
    }
}
