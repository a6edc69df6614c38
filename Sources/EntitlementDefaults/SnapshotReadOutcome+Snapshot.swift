import Entitlements
import SharedDefaults

extension SnapshotReadOutcome {
    /// The snapshot to use after this refresh: the new one when it was accepted, otherwise the
    /// reader's last good one (`nil` when there has never been one). Never a refused snapshot.
    public var snapshot: EntitlementSnapshot? {
        switch self {
        case .updated(let snapshot): snapshot
        case .unchanged(let snapshot): snapshot
        case .missing(let lastGood): lastGood
        case .rejected(_, let lastGood): lastGood
        case .failed(_, _, let lastGood): lastGood
        }
    }
}
