import Entitlements
import EntitlementDefaults
import SharedDefaults
import SystemShims

/// One-shot read of the published snapshot for `status`, `check` and a one-shot `widget-renderer`.
package enum SnapshotLoading {
    package enum Result {
        case snapshot(EntitlementSnapshot)
        case missing(path: String)
        case refused(reason: String)
        /// The file could not be read: a system call failed with `errno`.
        case failed(reason: String, errno: Errno)
    }

    package static func read(_ layout: ContainerLayout) -> Result {
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        switch reader.refresh() {
        case .updated(let snapshot): return .snapshot(snapshot)
        case .unchanged(let snapshot?): return .snapshot(snapshot)
        case .unchanged(nil), .missing: return .missing(path: layout.sharedFilePath)
        case .rejected(let reason, _): return .refused(reason: reason)
        case .failed(let reason, let errno, _): return .failed(reason: reason, errno: errno)
        }
    }
}
