import PropertyList

/// Why a suite file's bytes gave no snapshot: the three steps of reading one, each failing closed.
public enum SnapshotFileDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a property list (`PropertyListCodec/decode(_:)` refused them).
    case undecodable(PropertyListError)
    /// The file's root is not a dictionary; `kind` names what it is ("array", "string", …).
    case rootNotDictionary(kind: String)
    /// The snapshot key is absent (``SnapshotDecodingError/missing``) or its value is refused.
    case snapshot(SnapshotDecodingError)

    public var description: String {
        switch self {
        case .undecodable(let error): error.description
        case .rootNotDictionary(let kind): "the property list's root is \(kind), not a dictionary"
        case .snapshot(let error): error.description
        }
    }
}

extension EntitlementSnapshot {
    /// Reads the snapshot stored under ``defaultsKey`` from the bytes of a whole suite file
    /// (what `SharedDefaults` writes): the whole file is decoded and checked as
    /// `PropertyListCodec/decode(_:)` does (it throws the same errors), its root must be a
    /// dictionary, and the key's value is read as ``init(propertyList:)`` reads it.
    ///
    /// - Throws: ``SnapshotFileDecodingError``; `.snapshot(.missing)` when nothing is published.
    public static func decode(fromSuiteBytes bytes: [UInt8]) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        let root: PropertyListValue
        do { root = try PropertyListCodec.decode(bytes) } catch { throw .undecodable(error) }
        return try SnapshotSchema.snapshot(inSuiteRoot: root)
    }
}
