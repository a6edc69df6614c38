#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    /// (what `SharedDefaults` writes), without building the rest of the file's values.
    ///
    /// The whole file is checked as `PropertyListCodec/decode(_:)` checks it (it throws the
    /// same errors), its root must be a dictionary, and the key's value is read as
    /// ``init(propertyList:)`` reads it (`SnapshotSchema`). A binary file is read in place
    /// once the property-list walk has accepted it; an XML file is decoded to values first.
    ///
    /// - Throws: ``SnapshotFileDecodingError``; `.snapshot(.missing)` when nothing is published.
    public static func decode(fromSuiteBytes bytes: [UInt8]) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        guard bytes.starts(with: binaryPrefix) else { return try decodeThroughValues(fromSuiteBytes: bytes) }
        let outcome: InPlaceOutcome
        do {
            outcome = try AcceptedBinaryPropertyList.withAccepted(bytes) { file in
                switch SnapshotInPlace.withReader(file, { reader in SnapshotSchema.snapshot(inSuiteRoot: file.top, of: reader) }) {
                case .success(let snapshot): .decoded(snapshot)
                case .failure(let error): .refused(error)
                }
            }
        } catch {
            throw .undecodable(error)
        }
        switch outcome {
        case .decoded(let snapshot): return snapshot
        case .refused(let error): throw error
        }
    }

    /// What the in-place read gives back through the property-list walk's generic
    /// `withAccepted`: its own type rather than a `Result`, whose metadata (and `Error`
    /// conformance look-up) would be built at run time on every process's first read.
    private enum InPlaceOutcome {
        case decoded(EntitlementSnapshot)
        case refused(SnapshotFileDecodingError)
    }

    /// Every value of the file decoded, then the snapshot read from the tree: the path of XML
    /// files, and the tests' second reading of binary ones.
    static func decodeThroughValues(fromSuiteBytes bytes: [UInt8]) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        let root: PropertyListValue
        do { root = try PropertyListCodec.decode(bytes) } catch { throw .undecodable(error) }
        return try SnapshotSchema.snapshot(inSuiteRoot: root, of: SnapshotTree()).get()
    }

    /// What every binary property list starts with (`PropertyListCodec/decode(_:)` routes on it too).
    private static let binaryPrefix: [UInt8] = Array("bplist".utf8)
}
