import EntitlementModel
import PropertyList
import Synchronization

/// What one ``SnapshotReader/refresh()`` found.
public enum SnapshotReadOutcome: Sendable, Hashable {
    /// The file did not change (or changed without a new snapshot); the value is the last good one.
    case unchanged(EntitlementSnapshot?)
    /// A newer valid snapshot was read and is now the last good one.
    case updated(EntitlementSnapshot)
    /// The file or its snapshot was refused; `reason` is one line naming the file. The last good
    /// snapshot is kept and returned.
    case rejected(reason: String, lastGood: EntitlementSnapshot?)
    /// There is no suite file, or it holds no snapshot key; the last good snapshot is kept.
    case missing(lastGood: EntitlementSnapshot?)
}

/// Reads the entitlement snapshot that ``SharedDefaults/publish(_:)`` writes, failing closed.
///
/// The reader remembers the last good snapshot and never gives it up for a worse one: a file
/// refused by ``SharedDefaults`` validation, a snapshot that does not decode, an unknown
/// `schemaVersion`, or a `generation` lower than the last good one (a replayed old file) are all
/// reported as ``SnapshotReadOutcome/rejected(reason:lastGood:)``. Refreshing an unchanged file
/// costs two `lstat` calls and no decoding. Safe to call from any thread.
public final class SnapshotReader: Sendable {
    private let defaults: SharedDefaults
    private let state = Mutex<EntitlementSnapshot?>(nil)

    /// The suite file path being read.
    public var path: String { defaults.path }

    public init(suiteName: String, container: String, options: SharedDefaults.Options = .init()) {
        defaults = SharedDefaults(suiteName: suiteName, container: container, options: options)
    }

    /// The newest snapshot accepted so far, or `nil`.
    public var lastGood: EntitlementSnapshot? { state.withLock { $0 } }

    /// Looks at the file and accepts a newer valid snapshot if there is one.
    public func refresh() -> SnapshotReadOutcome {
        state.withLock { lastGood in
            let result: ReloadResult
            let contents: [String: PropertyListValue]
            do throws(SharedDefaultsError) {
                (result, contents) = try defaults.reloadWithContents()
            } catch {
                return .rejected(reason: error.description, lastGood: lastGood)
            }
            switch result {
            case .missing: return .missing(lastGood: lastGood)
            case .unchanged: return .unchanged(lastGood)
            case .changed: break
            }
            guard let value = contents[EntitlementSnapshot.defaultsKey] else { return .missing(lastGood: lastGood) }
            let snapshot: EntitlementSnapshot
            do throws(SnapshotDecodingError) {
                snapshot = try EntitlementSnapshot(propertyList: value)
            } catch {
                return .rejected(reason: "\(path): snapshot refused: \(error.description)", lastGood: lastGood)
            }
            if let current = lastGood {
                if snapshot == current { return .unchanged(current) }
                if snapshot.generation < current.generation {
                    return .rejected(
                        reason: "\(path): snapshot generation \(snapshot.generation) is older than the last good \(current.generation) (replayed file?)",
                        lastGood: current)
                }
                if snapshot.generation == current.generation {
                    return .rejected(
                        reason: "\(path): snapshot generation \(snapshot.generation) was already read with different contents",
                        lastGood: current)
                }
            }
            lastGood = snapshot
            return .updated(snapshot)
        }
    }
}
