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
    /// Accepts and refuses exactly what the general path does — `PropertyListCodec/decode(_:)`
    /// of the whole file, its root a dictionary, then ``init(propertyList:)`` of the key's value —
    /// and throws the same errors: a binary file is first walked in place
    /// (`BinaryPropertyListReader`): the whole file checked as the decoder checks it
    /// (`AcceptedBinaryPropertyList`), then the
    /// snapshot read field by field; anything that walk is not certain about (any error, a
    /// UTF-16 key or value in the snapshot, an XML file) goes through the general path, which
    /// explains the problem.
    ///
    /// - Throws: ``SnapshotFileDecodingError``; `.snapshot(.missing)` when nothing is published.
    public static func decode(fromSuiteBytes bytes: [UInt8]) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        if let snapshot = decodeInPlace(fromSuiteBytes: bytes) { return snapshot }
        return try decodeThroughValues(fromSuiteBytes: bytes)
    }

    /// The general path: every value of the file decoded, then the snapshot validated.
    static func decodeThroughValues(fromSuiteBytes bytes: [UInt8]) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        let root: PropertyListValue
        do { root = try PropertyListCodec.decode(bytes) } catch { throw .undecodable(error) }
        guard case .dictionary(let contents) = root else { throw .rootNotDictionary(kind: root.kindInWords) }
        guard let value = contents[defaultsKey] else { throw .snapshot(.missing) }
        do { return try EntitlementSnapshot(propertyList: value) } catch { throw .snapshot(error) }
    }

    /// The in-place path; `nil` when the file is not certain to decode to a valid snapshot.
    static func decodeInPlace(fromSuiteBytes bytes: [UInt8]) -> EntitlementSnapshot? {
        BinaryPropertyListReader.withReader(bytes) { reader in
            guard let file = reader.accepted(), let root = file.dictionary(file.top) else { return nil }
            var wanted = defaultsKey
            return wanted.withUTF8 { wantedBytes in
                for position in 0..<root.count {
                    // Every key is an ASCII string (the whole-file check made sure).
                    guard let keyBytes = file.asciiBytes(file.key(position, of: root)) else { return nil }
                    guard keyBytes.count == wantedBytes.count, keyBytes.elementsEqual(wantedBytes) else { continue }
                    return SnapshotInPlaceDecoder.withDecoder(file) { $0.snapshot(file.value(position, of: root)) }
                }
                return nil
            }
        }
    }
}
