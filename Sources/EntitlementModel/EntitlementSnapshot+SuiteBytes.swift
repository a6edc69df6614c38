#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// Why a suite file's bytes gave no snapshot: the three steps of reading one, each failing closed.
public enum SnapshotFileDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a property list (``PropertyListCodec/decode(_:)`` refused them).
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
    /// Accepts and refuses exactly what the general path does — ``PropertyListCodec/decode(_:)``
    /// of the whole file, its root a dictionary, then ``init(propertyList:)`` of the key's value —
    /// and throws the same errors: a binary file is first walked in place
    /// (``BinaryPropertyListReader``): the whole file checked as the decoder checks it, the
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
            guard reader.acceptsWholeFile(), let root = reader.dictionary(reader.top) else { return nil }
            for position in 0..<root.count {
                guard let key = reader.key(position, of: root) else { return nil }
                guard reader.isASCIIString(key, equalTo: defaultsKey) else { continue }
                guard let value = reader.value(position, of: root) else { return nil }
                var decoder = SnapshotInPlaceDecoder(reader: reader)
                return decoder.snapshot(value)
            }
            return nil
        }
    }
}

/// ``EntitlementSnapshot/init(propertyList:)``'s checks, read from a file the reader has already
/// found acceptable as a whole (so keys are ASCII and distinct): each answers `nil` where that
/// initializer would throw, or where this reader is not sure.
private struct SnapshotInPlaceDecoder {
    typealias Object = BinaryPropertyListReader.Object
    let reader: BinaryPropertyListReader

    init(reader: BinaryPropertyListReader) { self.reader = reader }

    mutating func snapshot(_ object: Object) -> EntitlementSnapshot? {
        guard let root = reader.dictionary(object) else { return nil }
        var version: Int64?, generation: Int64?, issuedAt: Date?, nextTransition: Date?, table: Object?
        for position in 0..<root.count {
            guard let key = reader.key(position, of: root), let value = reader.value(position, of: root) else { return nil }
            if reader.isASCIIString(key, equalTo: "schemaVersion") {
                guard let number = reader.scalar(value)?.integerValue else { return nil }
                version = number
            } else if reader.isASCIIString(key, equalTo: "generation") {
                // Strictly an integer, as the general path requires (a real such as 8.0 is refused).
                guard case .integer(let number)? = reader.scalar(value) else { return nil }
                generation = number
            } else if reader.isASCIIString(key, equalTo: "issuedAt") {
                guard let date = date(value) else { return nil }
                issuedAt = date
            } else if reader.isASCIIString(key, equalTo: "nextTransition") {
                guard let date = date(value) else { return nil }
                nextTransition = date
            } else if reader.isASCIIString(key, equalTo: "entitlements") {
                table = value
            }
        }
        guard let version, version == Int64(EntitlementSnapshot.currentSchemaVersion), let generation, generation >= 0,
            let issuedAt, let table, let entitlements = entitlements(table)
        else { return nil }
        return EntitlementSnapshot(
            schemaVersion: Int(version), generation: generation, issuedAt: issuedAt, nextTransition: nextTransition,
            entitlements: entitlements)
    }

    private mutating func entitlements(_ object: Object) -> [String: EntitlementStatus]? {
        guard let table = reader.dictionary(object) else { return nil }
        var entitlements = [String: EntitlementStatus](minimumCapacity: table.count)
        for position in 0..<table.count {
            guard let key = reader.key(position, of: table), let id = reader.asciiString(key),
                let value = reader.value(position, of: table), let status = status(value)
            else { return nil }
            entitlements[id] = status
        }
        return entitlements
    }

    /// The fields of an entry; `other` is ignored, as ``EntitlementSnapshot/init(propertyList:)`` does.
    private enum EntryField: CaseIterable {
        case active, state, periodType, ownership, willRenew, expiresAt, productId, other

        var name: [UInt8] {
            switch self {
            case .active: Array("active".utf8)
            case .state: Array("state".utf8)
            case .periodType: Array("periodType".utf8)
            case .ownership: Array("ownership".utf8)
            case .willRenew: Array("willRenew".utf8)
            case .expiresAt: Array("expiresAt".utf8)
            case .productId: Array("productId".utf8)
            case .other: []
            }
        }
    }

    private static let entryFieldNames: [(EntryField, [UInt8])] = EntryField.allCases.filter { $0 != .other }.map { ($0, $0.name) }

    /// Key objects already resolved: a writer stores each key string once and every entry
    /// references it, so the bytes are compared once per file, not once per entry.
    private var resolvedKeys: [(object: Int, field: EntryField)] = []
    /// Likewise for enumeration values (`subscribed`, `normal`, `purchased`, …).
    private var resolvedStates: [(object: Int, value: EntitlementState)] = []
    private var resolvedPeriodTypes: [(object: Int, value: PeriodType)] = []
    private var resolvedOwnerships: [(object: Int, value: Ownership)] = []

    private mutating func field(_ key: Object) -> EntryField? {
        for index in resolvedKeys.indices where resolvedKeys[index].object == key.index { return resolvedKeys[index].field }
        guard let bytes = reader.asciiBytes(key) else { return nil }
        var field = EntryField.other
        for (candidate, name) in Self.entryFieldNames where name.count == bytes.count && name.elementsEqual(bytes) {
            field = candidate
            break
        }
        if resolvedKeys.count < 32 { resolvedKeys.append((key.index, field)) }
        return field
    }

    private mutating func status(_ object: Object) -> EntitlementStatus? {
        guard let entry = reader.dictionary(object) else { return nil }
        var active: Bool?, willRenew: Bool?, state: EntitlementState?, periodType: PeriodType?, ownership: Ownership?
        var expiresAt: Date?, productId: String?
        for position in 0..<entry.count {
            guard let key = reader.key(position, of: entry), let value = reader.value(position, of: entry), let field = field(key)
            else { return nil }
            switch field {
            case .active:
                guard let flag = reader.scalar(value)?.boolValue else { return nil }
                active = flag
            case .state:
                guard let parsed = enumeration(value, Self.states, memo: &resolvedStates) else { return nil }
                state = parsed
            case .periodType:
                guard let parsed = enumeration(value, Self.periodTypes, memo: &resolvedPeriodTypes) else { return nil }
                periodType = parsed
            case .ownership:
                guard let parsed = enumeration(value, Self.ownerships, memo: &resolvedOwnerships) else { return nil }
                ownership = parsed
            case .willRenew:
                guard let flag = reader.scalar(value)?.boolValue else { return nil }
                willRenew = flag
            case .expiresAt:
                guard let date = date(value) else { return nil }
                expiresAt = date
            case .productId:
                guard let string = reader.asciiString(value) else { return nil }
                productId = string
            case .other:
                break
            }
        }
        guard let active, let state, let periodType, let ownership, let willRenew else { return nil }
        return EntitlementStatus(
            active: active, state: state, periodType: periodType, expiresAt: expiresAt, productId: productId, willRenew: willRenew,
            ownership: ownership)
    }

    /// A finite date inside ``EntitlementSnapshot/dateRange``, as ``EntitlementSnapshot/init(propertyList:)`` requires.
    private func date(_ object: Object) -> Date? {
        guard let date = reader.scalar(object)?.dateValue, date.timeIntervalSince1970.isFinite,
              EntitlementSnapshot.dateRange.contains(date)
        else { return nil }
        return date
    }

    /// The case whose raw value is the ASCII string `object`, compared byte for byte (once per
    /// string object: `memo` remembers).
    private func enumeration<E>(_ object: Object, _ cases: [(E, [UInt8])], memo: inout [(object: Int, value: E)]) -> E? {
        for index in memo.indices where memo[index].object == object.index { return memo[index].value }
        guard let bytes = reader.asciiBytes(object) else { return nil }
        for (value, raw) in cases where raw.count == bytes.count && raw.elementsEqual(bytes) {
            if memo.count < 32 { memo.append((object.index, value)) }
            return value
        }
        return nil
    }

    private static let states = EntitlementState.allCases.map { ($0, Array($0.rawValue.utf8)) }
    private static let periodTypes = PeriodType.allCases.map { ($0, Array($0.rawValue.utf8)) }
    private static let ownerships = Ownership.allCases.map { ($0, Array($0.rawValue.utf8)) }
}
