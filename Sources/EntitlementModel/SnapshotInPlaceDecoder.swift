import Foundation
import PropertyList

/// ``EntitlementSnapshot/init(propertyList:)``'s checks, read from a file the reader has already
/// found acceptable as a whole (so keys are ASCII and distinct, and every object well formed):
/// each answers `nil` where that initializer would throw, or where this reader is not sure (a
/// UTF-16 string, say; the caller then takes the general path, which explains the problem).
///
/// A writer stores each key string and each enumeration value once and every entry references
/// it, so what a string object means (which entry field, which state…) is worked out once per
/// object and remembered in a per-object table, not compared again for every entry.
struct SnapshotInPlaceDecoder {
    typealias Object = BinaryPropertyListReader.Object
    private let reader: BinaryPropertyListReader
    /// Per object, four lanes: entry field, state, period type, ownership. 0 not yet resolved,
    /// ``unknown`` not a value of that lane, else the case's position + 1.
    private let resolved: UnsafeMutablePointer<UInt8>
    private let earliest: Date
    private let latest: Date

    private static let unknown: UInt8 = 0xFF
    private enum Lane: Int { case field = 0, state, periodType, ownership }

    /// Runs `body` with a decoder over `reader`'s file, its memory freed afterwards.
    static func withDecoder<Result>(_ reader: BinaryPropertyListReader, _ body: (SnapshotInPlaceDecoder) -> Result) -> Result {
        let slots = 4 * reader.objectCount
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: slots)
        storage.initialize(repeating: 0, count: slots)
        defer { storage.deallocate() }
        let range = EntitlementSnapshot.dateRange
        return body(SnapshotInPlaceDecoder(reader: reader, resolved: storage, earliest: range.lowerBound, latest: range.upperBound))
    }

    func snapshot(_ object: Object) -> EntitlementSnapshot? {
        guard let root = reader.dictionary(object) else { return nil }
        var version: Int64?, generation: Int64?, issuedAt: Date?, nextTransition: Date?, table: Object?
        for position in 0..<root.count {
            guard let key = reader.key(position, of: root), let value = reader.value(position, of: root),
                let name = reader.asciiBytes(key)
            else { return nil }
            if Self.equals(name, "schemaVersion") {
                // Any integral number, as `PropertyListValue.integerValue` reads it (1.0 included).
                guard let number = reader.scalar(value)?.integerValue else { return nil }
                version = number
            } else if Self.equals(name, "generation") {
                // Strictly an integer, as the general path requires (a real such as 8.0 is refused).
                guard let number = reader.integer(value) else { return nil }
                generation = number
            } else if Self.equals(name, "issuedAt") {
                guard let date = date(value) else { return nil }
                issuedAt = date
            } else if Self.equals(name, "nextTransition") {
                guard let date = date(value) else { return nil }
                nextTransition = date
            } else if Self.equals(name, "entitlements") {
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

    private func entitlements(_ object: Object) -> [String: EntitlementStatus]? {
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

    /// The fields of an entry, in the order of ``fieldNames``; any other key is ignored, as
    /// ``EntitlementSnapshot/init(propertyList:)`` ignores it.
    private static let fieldNames: [StaticString] = ["active", "state", "periodType", "ownership", "willRenew", "expiresAt", "productId"]

    private func status(_ object: Object) -> EntitlementStatus? {
        guard let entry = reader.dictionary(object) else { return nil }
        var active: Bool?, willRenew: Bool?, state: EntitlementState?, periodType: PeriodType?, ownership: Ownership?
        var expiresAt: Date?, productId: String?
        for position in 0..<entry.count {
            guard let key = reader.key(position, of: entry), let value = reader.value(position, of: entry),
                let field = field(key)
            else { return nil }
            switch field {
            case 1:
                guard let flag = reader.boolean(value) else { return nil }
                active = flag
            case 2:
                guard let parsed: EntitlementState = enumeration(value, lane: .state, Self.states) else { return nil }
                state = parsed
            case 3:
                guard let parsed: PeriodType = enumeration(value, lane: .periodType, Self.periodTypes) else { return nil }
                periodType = parsed
            case 4:
                guard let parsed: Ownership = enumeration(value, lane: .ownership, Self.ownerships) else { return nil }
                ownership = parsed
            case 5:
                guard let flag = reader.boolean(value) else { return nil }
                willRenew = flag
            case 6:
                guard let date = date(value) else { return nil }
                expiresAt = date
            case 7:
                guard let string = reader.asciiString(value) else { return nil }
                productId = string
            default:
                break
            }
        }
        guard let active, let state, let periodType, let ownership, let willRenew else { return nil }
        return EntitlementStatus(
            active: active, state: state, periodType: periodType, expiresAt: expiresAt, productId: productId, willRenew: willRenew,
            ownership: ownership)
    }

    /// Which entry field key `key` names: 1...7 (``fieldNames``' position + 1), ``unknown`` for
    /// another key; `nil` if it is not an ASCII string.
    private func field(_ key: Object) -> UInt8? {
        let slot = resolved + (4 * key.index + Lane.field.rawValue)
        if slot.pointee != 0 { return slot.pointee }
        guard let name = reader.asciiBytes(key) else { return nil }
        var field = Self.unknown
        for (position, candidate) in Self.fieldNames.enumerated() where Self.equals(name, candidate) {
            field = UInt8(position + 1)
            break
        }
        slot.pointee = field
        return field
    }

    /// A finite date inside ``EntitlementSnapshot/dateRange``, as ``EntitlementSnapshot/init(propertyList:)`` requires.
    private func date(_ object: Object) -> Date? {
        guard let date = reader.date(object), date.timeIntervalSince1970.isFinite, date >= earliest, date <= latest else { return nil }
        return date
    }

    /// The case whose raw value is the ASCII string `object` (`E(rawValue:)`, as the general path
    /// asks), worked out once per string object; `cases` is `E.allCases`.
    private func enumeration<E: RawRepresentable>(_ object: Object, lane: Lane, _ cases: [E]) -> E? where E.RawValue == String {
        let slot = resolved + (4 * object.index + lane.rawValue)
        switch slot.pointee {
        case Self.unknown: return nil
        case 0: break
        case let known: return cases[Int(known) - 1]
        }
        guard let raw = reader.asciiString(object), let value = E(rawValue: raw),
            let position = cases.firstIndex(where: { $0.rawValue == raw })
        else {
            slot.pointee = Self.unknown
            return nil
        }
        slot.pointee = UInt8(position + 1)
        return value
    }

    private static let states = EntitlementState.allCases
    private static let periodTypes = PeriodType.allCases
    private static let ownerships = Ownership.allCases

    /// Whether `bytes` are the ASCII text `literal`.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
