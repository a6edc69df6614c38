import Entitlements
import PropertyList
import SharedDefaults
import Synchronization
import SystemShims

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
    /// The file could not be read: a system call failed with `errno` (too many open files, out
    /// of memory, an I/O error, no permission), which says nothing about the file. `reason` is
    /// one line naming the file; the last good snapshot is kept, and may be out of date until a
    /// later refresh reads the file (the same file is not refused unread).
    case failed(reason: String, errno: Errno, lastGood: EntitlementSnapshot?)
}

/// Reads the entitlement snapshot the daemon publishes into the suite, failing closed.
///
/// The reader remembers the last good snapshot and never gives it up for a worse one: a file
/// refused by `SharedDefaults` validation, a snapshot that does not decode, an unknown
/// `schemaVersion`, or, in the history the last good one belongs to, a `generation` lower than
/// its (a replayed old file) are all reported as ``SnapshotReadOutcome/rejected(reason:lastGood:)``;
/// a read that failed (a system call's error) as ``SnapshotReadOutcome/failed(reason:errno:lastGood:)``,
/// to be tried again. A snapshot of another history (`EntitlementSnapshot/historyID`: the daemon
/// started a new one on a fresh or recreated container, whose generations start again at 1) is
/// accepted whatever its generation; one without a history id after one with an id is refused
/// (it was written before the daemon named its histories, so it is older than what the reader
/// holds). Who may write a file that claims a new history is what the file checks decide: the
/// reader's own user and the daemon's, nobody else. Refreshing an unchanged file costs two
/// `lstat` calls and no decoding. Safe to call from any thread.
public final class SnapshotReader: Sendable {
    private let defaults: SharedDefaults
    private let state = Mutex<EntitlementSnapshot?>(nil)

    /// The suite file path being read.
    public var path: String { defaults.path }

    /// A reader of `<container>/Library/Preferences/<suiteName>.plist`. Nothing is read until
    /// ``refresh()``. The default options trust the reader's own user and the
    /// daemon's (`SharedDefaults.Options.readingTheDaemon`), so a reader in the daemon's group
    /// reads what the daemon publishes as its own user.
    public init(suiteName: String, container: String, options: SharedDefaults.Options = .readingTheDaemon) {
        defaults = SharedDefaults(suiteName: suiteName, container: container, options: options)
    }

    /// The newest snapshot accepted so far, or `nil`.
    public var lastGood: EntitlementSnapshot? { state.withLock { $0 } }

    /// Looks at the file and accepts a newer valid snapshot if there is one.
    ///
    /// A changed file is checked like every `SharedDefaults` file (see `SharedDefaultsError`)
    /// and its snapshot is decoded with `EntitlementSnapshot/decode(fromSuiteBytes:)`: the whole
    /// file must be a property list with a dictionary root.
    public func refresh() -> SnapshotReadOutcome {
        state.withLock { lastGood in
            let path = path
            let result: ReloadResult
            // What the file holds, as two plain optionals rather than one enum value: the
            // snapshot is then moved out, never copied through the enum's value witnesses.
            var decoded: EntitlementSnapshot?
            var refusal: SnapshotDecodingError?
            do throws(SharedDefaultsError) {
                result = try defaults.reload { bytes throws(SharedDefaultsError) in
                    switch try Self.snapshot(in: bytes, path: path) {
                    case .decoded(let snapshot): decoded = snapshot
                    case .refused(let error): refusal = error
                    }
                }
            } catch {
                if case .system(_, _, let errno) = error { return .failed(reason: error.description, errno: errno, lastGood: lastGood) }
                return .rejected(reason: error.description, lastGood: lastGood)
            }
            switch result {
            case .missing: return .missing(lastGood: lastGood)
            case .unchanged: return .unchanged(lastGood)
            case .changed: break
            }
            guard let snapshot = decoded.take() else {
                switch refusal {
                case .missing, nil: return .missing(lastGood: lastGood)
                case .some(let error): return .rejected(reason: "\(path): snapshot refused: \(error.description)", lastGood: lastGood)
                }
            }
            // Another history counts its generations afresh; none at all is an old file.
            if let current = lastGood, snapshot.historyID != current.historyID {
                guard snapshot.historyID != nil else {
                    return .rejected(
                        reason: "\(path): snapshot generation \(snapshot.generation) has no history id, after history "
                            + "\(current.historyID ?? "") generation \(current.generation) (written before histories were named: replayed file?)",
                        lastGood: current)
                }
                lastGood = snapshot
                return .updated(snapshot)
            }
            // A higher generation is a new snapshot whatever it holds (equality includes the
            // generation): only a generation that is not higher is compared in full.
            if let current = lastGood, snapshot.generation <= current.generation {
                if snapshot == current { return .unchanged(current) }
                if snapshot.generation < current.generation {
                    return .rejected(
                        reason: "\(path): snapshot generation \(snapshot.generation) is older than the last good \(current.generation) (replayed file?)",
                        lastGood: current)
                }
                return .rejected(
                    reason: "\(path): snapshot generation \(snapshot.generation) was already read with different contents",
                    lastGood: current)
            }
            lastGood = snapshot
            return .updated(snapshot)
        }
    }

    /// What a good suite file holds under the snapshot's key. Its own type rather than a
    /// `Result`: a generic type's metadata is built, and its `Error` conformance looked up in
    /// the binary's conformance records, at run time on first use, in every one-shot tool.
    private enum FileSnapshot {
        case decoded(EntitlementSnapshot)
        case refused(SnapshotDecodingError)
    }

    /// The snapshot in a suite file's bytes. A file that is not a property list, or whose root is
    /// not a dictionary, is refused as a file (the messages `SharedDefaults` gives); a missing
    /// or invalid snapshot in a good file is `refused`, so the file itself stays accepted
    /// and is not read again until it changes.
    private static func snapshot(in bytes: [UInt8], path: String) throws(SharedDefaultsError) -> FileSnapshot {
        do throws(SnapshotFileDecodingError) {
            return .decoded(try EntitlementSnapshot.decode(fromSuiteBytes: bytes))
        } catch {
            switch error {
            case .undecodable(let reason): throw .undecodable(path: path, reason: reason.description)
            case .rootNotDictionary(let kind): throw .rootNotDictionary(path: path, type: kind)
            case .snapshot(let refusal): return .refused(refusal)
            }
        }
    }
}
