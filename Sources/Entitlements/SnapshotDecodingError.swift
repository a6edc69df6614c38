/// Why a stored snapshot was refused. Readers fail closed on every one of these.
public enum SnapshotDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The shared file has no snapshot key (nothing published yet).
    case missing
    /// The snapshot was written by a schema this build does not know.
    case unknownSchemaVersion(Int64)
    /// A field is absent, of the wrong type, or out of range; `path` names it (`entitlements.plus.state`).
    case invalidField(path: String, problem: String)

    public var description: String {
        switch self {
        case .missing: "no snapshot has been published"
        case .unknownSchemaVersion(let v): "unknown snapshot schemaVersion \(v) (this build reads \(EntitlementSnapshot.currentSchemaVersion))"
        case .invalidField(let path, let problem): "snapshot field '\(path)' \(problem)"
        }
    }
}
