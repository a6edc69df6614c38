#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// ``EntitlementSnapshot/init(propertyList:)``'s checks, read from a file the reader has already
/// accepted as a whole (``AcceptedBinaryPropertyList``: keys are ASCII and distinct, every
/// object well formed, so only types and values are checked here): each answers `nil` where
/// that initializer would throw, or where this reader is not sure (a UTF-16 string, say; the
/// caller then takes the general path, which explains the problem).
///
/// A writer stores each key string and each enumeration value once and every entry references
/// it, so what a string object means (which entry field, which state…) is worked out once per
/// object and remembered in a per-object table, not compared again for every entry; a product
/// id shared by several entries becomes one `String`.
struct SnapshotInPlaceDecoder {
    typealias Object = AcceptedBinaryPropertyList.Object
    private let file: AcceptedBinaryPropertyList
    /// Per object, ``lanes`` bytes: entry field, state, period type, ownership. 0 not yet
    /// resolved, ``unknown`` not a value of that lane, else the case's position + 1. The fifth
    /// lane is the product-id string's position + 1 in the interned strings, 0 if none yet.
    private let resolved: UnsafeMutablePointer<UInt8>
    private let earliest: Double
    private let latest: Double

    private static let unknown: UInt8 = 0xFF
    private static let lanes = 8
    private enum Lane: Int { case field = 0, state, periodType, ownership, productId }

    /// Runs `body` with a decoder over `file`, its memory freed afterwards.
    static func withDecoder<Result>(_ file: AcceptedBinaryPropertyList, _ body: (SnapshotInPlaceDecoder) -> Result?) -> Result? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: lanes * (file.objectCount + 1)) { storage in
            guard let base = storage.baseAddress else { return nil }
            base.initialize(repeating: 0, count: storage.count)
            let range = EntitlementSnapshot.dateRange
            return body(SnapshotInPlaceDecoder(
                file: file, resolved: base, earliest: range.lowerBound.timeIntervalSinceReferenceDate,
                latest: range.upperBound.timeIntervalSinceReferenceDate))
        }
    }

    func snapshot(_ object: Object) -> EntitlementSnapshot? {
        guard let root = file.dictionary(object) else { return nil }
        var version: Int64?, generation: Int64?, issuedAt: Date?, nextTransition: Date?, table: Object?
        var bootID: String?, bootTime: Int64?
        for position in 0..<root.count {
            guard let name = file.asciiBytes(file.key(position, of: root)) else { return nil }
            let value = file.value(position, of: root)
            if Self.equals(name, "schemaVersion") {
                // Any integral number, as `PropertyListValue.integerValue` reads it (1.0 included).
                guard let number = file.scalar(value)?.integerValue else { return nil }
                version = number
            } else if Self.equals(name, "generation") {
                // Strictly an integer, as the general path requires (a real such as 8.0 is refused).
                guard let number = file.integer(value) else { return nil }
                generation = number
            } else if Self.equals(name, "issuedAt") {
                guard let date = date(value) else { return nil }
                issuedAt = date
            } else if Self.equals(name, "nextTransition") {
                guard let date = date(value) else { return nil }
                nextTransition = date
            } else if Self.equals(name, "entitlements") {
                table = value
            } else if Self.equals(name, "bootId") {
                guard let string = file.asciiString(value) else { return nil }
                bootID = string
            } else if Self.equals(name, "bootTimeNanoseconds") {
                // Strictly an integer, as the general path requires.
                guard let number = file.integer(value) else { return nil }
                bootTime = number
            }
        }
        // Both or neither, each valid, as `EntitlementSnapshot.bootInstant(bootID:bootTime:)` decides.
        var issuedIn: BootInstant?
        switch (bootID, bootTime) {
        case (nil, nil): break
        case (let id?, let nanoseconds?):
            guard let instant = BootInstant(bootID: id, nanosecondsSinceBoot: nanoseconds) else { return nil }
            issuedIn = instant
        default: return nil
        }
        guard let version, version == Int64(EntitlementSnapshot.currentSchemaVersion), let generation, generation >= 0,
            let issuedAt, let table, let entitlements = entitlements(table)
        else { return nil }
        return EntitlementSnapshot(
            schemaVersion: Int(version), generation: generation, issuedAt: issuedAt, nextTransition: nextTransition,
            entitlements: entitlements, issuedIn: issuedIn)
    }

    private func entitlements(_ object: Object) -> [String: EntitlementStatus]? {
        guard let table = file.dictionary(object) else { return nil }
        var entitlements = [String: EntitlementStatus](minimumCapacity: table.count)
        var productIds: [String] = []
        for position in 0..<table.count {
            // Keys are ASCII strings, told apart by the whole-file check.
            guard let id = file.asciiString(file.key(position, of: table)),
                let status = status(file.value(position, of: table), productIds: &productIds)
            else { return nil }
            entitlements[id] = status
        }
        return entitlements
    }

    /// The fields of an entry, in the order of ``fieldNames``; any other key is ignored, as
    /// ``EntitlementSnapshot/init(propertyList:)`` ignores it.
    private static let fieldNames: [StaticString] = ["active", "state", "periodType", "ownership", "willRenew", "expiresAt", "productId"]

    private func status(_ object: Object, productIds: inout [String]) -> EntitlementStatus? {
        guard let entry = file.dictionary(object) else { return nil }
        var active: Bool?, willRenew: Bool?, state: EntitlementState?, periodType: PeriodType?, ownership: Ownership?
        var expiresAt: Date?, productId: String?
        for position in 0..<entry.count {
            let value = file.value(position, of: entry)
            switch field(file.key(position, of: entry)) {
            case 1:
                guard let flag = file.boolean(value) else { return nil }
                active = flag
            case 2:
                guard let parsed: EntitlementState = enumeration(value, lane: .state) else { return nil }
                state = parsed
            case 3:
                guard let parsed: PeriodType = enumeration(value, lane: .periodType) else { return nil }
                periodType = parsed
            case 4:
                guard let parsed: Ownership = enumeration(value, lane: .ownership) else { return nil }
                ownership = parsed
            case 5:
                guard let flag = file.boolean(value) else { return nil }
                willRenew = flag
            case 6:
                guard let date = date(value) else { return nil }
                expiresAt = date
            case 7:
                guard let string = internedProductId(value, &productIds) else { return nil }
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
    /// another key (every key is an ASCII string).
    @inline(__always) private func field(_ key: Object) -> UInt8 {
        let slot = resolved + (Self.lanes &* key.index &+ Lane.field.rawValue)
        if slot.pointee != 0 { return slot.pointee }
        return resolveField(key, slot)
    }

    private func resolveField(_ key: Object, _ slot: UnsafeMutablePointer<UInt8>) -> UInt8 {
        var field = Self.unknown
        if let name = file.asciiBytes(key) {
            for (position, candidate) in Self.fieldNames.enumerated() where Self.equals(name, candidate) {
                field = UInt8(position + 1)
                break
            }
        }
        slot.pointee = field
        return field
    }

    /// The ASCII string `object` as a `String`, made once per string object: entries sharing a
    /// product id share the `String` (up to 254 distinct ids; later ones are made per use).
    @inline(__always) private func internedProductId(_ object: Object, _ interned: inout [String]) -> String? {
        let slot = resolved + (Self.lanes &* object.index &+ Lane.productId.rawValue)
        let known = slot.pointee
        if known != 0 && known != Self.unknown { return interned[Int(known) - 1] }
        guard let string = file.asciiString(object) else { return nil }
        if known == 0 {
            if interned.count < Int(Self.unknown) - 1 {
                interned.append(string)
                slot.pointee = UInt8(interned.count)
            } else {
                slot.pointee = Self.unknown
            }
        }
        return string
    }

    /// A finite date inside ``EntitlementSnapshot/dateRange``, as ``EntitlementSnapshot/init(propertyList:)`` requires.
    @inline(__always) private func date(_ object: Object) -> Date? {
        guard let date = file.date(object) else { return nil }
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds >= earliest, seconds <= latest else { return nil }  // NaN and infinities fail too
        return date
    }

    /// The case whose raw value is the ASCII string `object` (`E(rawValue:)`, as the general path
    /// asks), worked out once per string object.
    @inline(__always) private func enumeration<E: RawRepresentable & CaseIterable>(_ object: Object, lane: Lane) -> E?
    where E.RawValue == String, E.AllCases == [E] {
        let slot = resolved + (Self.lanes &* object.index &+ lane.rawValue)
        switch slot.pointee {
        case Self.unknown: return nil
        case 0: return resolveEnumeration(object, slot)
        case let known: return E.allCases[Int(known) - 1]
        }
    }

    private func resolveEnumeration<E: RawRepresentable & CaseIterable>(_ object: Object, _ slot: UnsafeMutablePointer<UInt8>) -> E?
    where E.RawValue == String, E.AllCases == [E] {
        guard let raw = file.asciiString(object), let value = E(rawValue: raw),
            let position = E.allCases.firstIndex(where: { $0.rawValue == raw })
        else {
            slot.pointee = Self.unknown
            return nil
        }
        slot.pointee = UInt8(position + 1)
        return value
    }

    /// Whether `bytes` are the ASCII text `literal`.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
