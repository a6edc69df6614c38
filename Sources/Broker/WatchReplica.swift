import EntitlementModel
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import SystemShims

/// Delivery of snapshots to the watch's own container with `updateApplicationContext`
/// semantics: only the latest snapshot matters, nothing queues behind it, and while the link is
/// down (the `watch-link` marker file exists) nothing is delivered; when it comes back up the
/// latest snapshot is delivered once.
final class WatchReplica {
    let container: String
    let linkPath: String
    private let store: SharedDefaults
    private var latest: EntitlementSnapshot?
    private var deliveredGeneration: Int64?

    init(container: String, group: String, linkPath: String, durable: Bool) {
        self.container = container
        self.linkPath = linkPath
        store = SharedDefaults(suiteName: group, container: container, options: .init(durable: durable))
    }

    /// Whether the simulated link to the watch is up.
    var isLinkUp: Bool { (try? fileStatus(atPath: linkPath)) == nil }

    /// A new snapshot was published on the phone.
    func offer(_ snapshot: EntitlementSnapshot, log: (String) -> Void) {
        latest = snapshot
        deliverIfPossible(log: log)
    }

    /// The link marker changed.
    func linkChanged(log: (String) -> Void) {
        deliverIfPossible(log: log)
    }

    private func deliverIfPossible(log: (String) -> Void) {
        guard let latest, deliveredGeneration != latest.generation else { return }
        guard isLinkUp else {
            log("watch: link down, holding generation \(latest.generation)")
            return
        }
        do {
            try store.publish(latest)
            deliveredGeneration = latest.generation
            log("watch: delivered generation \(latest.generation) to \(container)")
        } catch {
            log("watch: delivery to \(container) failed, will retry on the next change: \(error)")
        }
    }
}
