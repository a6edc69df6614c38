#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// The one description of the snapshot as a property list: its field names (``RootField``,
/// ``EntryField``, and the suite key ``SuiteField``), which are required, what each must hold,
/// and the error each refusal gives. ``EntitlementSnapshot/propertyList`` writes these fields and
/// ``EntitlementSnapshot/init(propertyList:)`` and ``EntitlementSnapshot/decode(fromSuiteBytes:)``
/// read them through here, from a decoded tree or in place from an accepted binary file
/// (``SnapshotPropertyList`` is what a form has to offer).
///
/// Anything unexpected is an error, never a default: an unknown schema version, a missing
/// field, an unknown state, a negative generation, a date that is not finite or outside
/// ``dateRange``, half a boot reading, or a history id that is not one. Keys other than these
/// names are ignored.
enum SnapshotSchema {
    /// The suite file's key for the snapshot; other keys belong to other writers.
    enum SuiteField: String, SnapshotFieldName {
        case snapshot = "entitlementSnapshot"
        static var rememberedIn: Int? { nil }
        static let texts = SnapshotNameTexts<Self>()
        var position: Int { 0 }
    }

    /// The snapshot dictionary's fields. `bootId` and `bootTimeNanoseconds` (the boot id and
    /// `CLOCK_BOOTTIME` at issue) are both present or both absent; `historyId` (the history the
    /// generation counts in) is optional, absent from snapshots written before it existed;
    /// so are `unmappedProducts` and `introOfferIneligibleGroups` (read as empty);
    /// `companionSyncedAt` (a date) is absent before the first sync with the companion, and
    /// `device` (`phone` or `watch`) is absent on a phone.
    enum RootField: String, SnapshotFieldName {
        case schemaVersion, generation, issuedAt, nextTransition, bootId, bootTimeNanoseconds, entitlements, historyId, unmappedProducts
        case introOfferIneligibleGroups, companionSyncedAt, device
        static var rememberedIn: Int? { nil }  // read once per file
        static let texts = SnapshotNameTexts<Self>()
        var position: Int {
            switch self {
            case .schemaVersion: 0
            case .generation: 1
            case .issuedAt: 2
            case .nextTransition: 3
            case .bootId: 4
            case .bootTimeNanoseconds: 5
            case .entitlements: 6
            case .historyId: 7
            case .unmappedProducts: 8
            case .introOfferIneligibleGroups: 9
            case .companionSyncedAt: 10
            case .device: 11
            }
        }
    }

    /// An entitlement entry's fields; `expiresAt`, `productId`, `products`, `revocation` and
    /// `renewalPending` are optional (without `products`, the deciding product alone while
    /// active; without `renewalPending`, false).
    enum EntryField: String, SnapshotFieldName {
        case active, state, periodType, ownership, willRenew, expiresAt, productId, products, revocation, renewalPending
        static var rememberedIn: Int? { 0 }
        static let texts = SnapshotNameTexts<Self>()
        var position: Int {
            switch self {
            case .active: 0
            case .state: 1
            case .periodType: 2
            case .ownership: 3
            case .willRenew: 4
            case .expiresAt: 5
            case .productId: 6
            case .products: 7
            case .revocation: 8
            case .renewalPending: 9
            }
        }
    }

    /// Earliest and latest instants a snapshot may name: the App Store did not exist before
    /// 2008, and the engine never computes a date past 2300 from events capped at 2200. Anything
    /// outside is corrupt or forged (and would trap date formatting far enough out).
    static let dateRange = Date(timeIntervalSince1970: 1_199_145_600)...Date(timeIntervalSince1970: 10_413_792_000)

    /// The snapshot stored under ``SuiteField/snapshot`` in a suite file's root.
    static func snapshot<Source: SnapshotPropertyList>(
        inSuiteRoot root: Source.Object, of source: Source
    ) -> Result<EntitlementSnapshot, SnapshotFileDecodingError> {
        var stored: Source.Object?
        guard source.forEachField(of: root, as: SuiteField.self, { _, value in stored = value }) else {
            return .failure(.rootNotDictionary(kind: source.kindInWords(root)))
        }
        guard let stored else { return .failure(.snapshot(.missing)) }
        do throws(SnapshotDecodingError) { return .success(try snapshot(stored, in: source)) } catch { return .failure(.snapshot(error)) }
    }

    /// The snapshot in the dictionary `object`, checked field by field in a fixed order (so a
    /// snapshot with several problems is refused for the same one whatever its form).
    static func snapshot<Source: SnapshotPropertyList>(_ object: Source.Object, in source: Source) throws(SnapshotDecodingError) -> EntitlementSnapshot {
        var fields = FieldValues<RootField, Source.Object>()
        guard source.forEachField(of: object, as: RootField.self, { position, value in fields[position] = value }) else {
            throw .invalidField(path: "", problem: "is not a dictionary")
        }
        let schemaVersion = fields[.schemaVersion], generation = fields[.generation], issuedAt = fields[.issuedAt]
        let nextTransition = fields[.nextTransition], bootId = fields[.bootId], bootTime = fields[.bootTimeNanoseconds]
        let table = fields[.entitlements], history = fields[.historyId], unmapped = fields[.unmappedProducts]
        let ineligible = fields[.introOfferIneligibleGroups]
        let synced = fields[.companionSyncedAt], device = fields[.device]
        // Any integral number (1.0 included), as `PropertyListValue.integerValue` reads it.
        guard let versionObject = schemaVersion,
            let version = source.integer(versionObject) ?? source.real(versionObject).flatMap({ PropertyListValue.real($0).integerValue })
        else {
            throw .invalidField(path: "schemaVersion", problem: "is missing or not an integer")
        }
        guard version == Int64(EntitlementSnapshot.currentSchemaVersion) else { throw .unknownSchemaVersion(version) }
        // Strictly an integer: a real such as 8.0 is a wrong type, not a generation.
        guard let generation = generation.flatMap(source.integer), generation >= 0 else {
            throw .invalidField(path: "generation", problem: "is missing or not a non-negative integer")
        }
        let issued = try rootDate(issuedAt, .issuedAt, source)
        let next = try nextTransition.map { object throws(SnapshotDecodingError) in try rootDate(object, .nextTransition, source) }
        let issuedIn = try bootInstant(bootID: bootId, bootTime: bootTime, source)
        var historyID: String?
        if let history {
            guard let id = source.string(history), EntitlementSnapshot.isValid(historyID: id) else {
                throw .invalidField(
                    path: RootField.historyId.rawValue,
                    problem: "is not 1 to \(EntitlementSnapshot.maximumHistoryIDLength) printable ASCII characters")
            }
            historyID = id
        }
        guard let table, let count = source.entryCount(of: table) else {
            throw .invalidField(path: "entitlements", problem: "is missing or not a dictionary")
        }
        var builder = EntitlementTable.Builder(capacity: count)
        try source.forEachEntry(of: table) { id, entry throws(SnapshotDecodingError) in
            // The field path ("entitlements.<id>.<field>") is built only when an entry is refused.
            do throws(EntryRefusal) {
                let row = try row(entry, into: &builder, source)
                builder.append(id, row)
            } catch {
                let path = error.field.map { "entitlements.\(id).\($0.rawValue)" } ?? "entitlements.\(id)"
                throw .invalidField(path: path, problem: error.problem)
            }
        }
        let entitlements: EntitlementTable
        switch builder.finish() {
        case .success(let table): entitlements = table
        case .failure(let duplicate): throw .invalidField(path: "entitlements.\(duplicate.id)", problem: "is named twice")
        }
        // Optional (a snapshot written before the field has none); when present, strings only.
        var unmappedProducts: [String] = []
        if let unmapped {
            guard let strings = source.strings(unmapped) else {
                throw .invalidField(path: RootField.unmappedProducts.rawValue, problem: "is not an array of strings")
            }
            unmappedProducts = strings
        }
        var introOfferIneligibleGroups: [String] = []
        if let ineligible {
            guard let strings = source.strings(ineligible) else {
                throw .invalidField(path: RootField.introOfferIneligibleGroups.rawValue, problem: "is not an array of strings")
            }
            introOfferIneligibleGroups = strings
        }
        var snapshot = EntitlementSnapshot(
            schemaVersion: Int(version), generation: generation, issuedAt: issued, nextTransition: next,
            entitlements: entitlements, issuedIn: issuedIn, historyID: historyID, unmappedProducts: unmappedProducts,
            introOfferIneligibleGroups: introOfferIneligibleGroups)
        snapshot.companionSyncedAt = try synced.map { object throws(SnapshotDecodingError) in try rootDate(object, .companionSyncedAt, source) }
        if let device {
            guard let value: SnapshotDevice = source.name(device) else {
                throw .invalidField(path: RootField.device.rawValue, problem: "is not phone or watch")
            }
            snapshot.device = value
        }
        return snapshot
    }

    /// The boot reading: `nil` when both fields are absent; refused when only one is there or
    /// either is not what ``BootInstant`` accepts.
    private static func bootInstant<Source: SnapshotPropertyList>(
        bootID: Source.Object?, bootTime: Source.Object?, _ source: Source
    ) throws(SnapshotDecodingError) -> BootInstant? {
        if bootID == nil, bootTime == nil { return nil }
        guard let id = bootID.flatMap(source.string), BootInstant.isValid(bootID: id) else {
            throw .invalidField(
                path: RootField.bootId.rawValue, problem: "is missing or not 1 to \(BootInstant.maximumBootIDLength) printable ASCII characters")
        }
        // Strictly an integer, like `generation`.
        guard let nanoseconds = bootTime.flatMap(source.integer), let instant = BootInstant(bootID: id, nanosecondsSinceBoot: nanoseconds) else {
            throw .invalidField(path: RootField.bootTimeNanoseconds.rawValue, problem: "is missing or not a non-negative integer")
        }
        return instant
    }

    /// A refused entry field (`nil` for the entry itself) and what is wrong with it.
    private struct EntryRefusal: Error {
        var field: EntryField?
        var problem: String
    }

    /// The entry `object` as a table row, its product id's bytes appended to `builder`.
    private static func row<Source: SnapshotPropertyList>(
        _ object: Source.Object, into builder: inout EntitlementTable.Builder, _ source: Source
    ) throws(EntryRefusal) -> EntitlementTable.Row {
        // Each value stored by its field's position (no branch per field), then checked in a fixed order.
        var fields = FieldValues<EntryField, Source.Object>()
        guard source.forEachField(of: object, as: EntryField.self, { position, value in fields[position] = value }) else {
            throw EntryRefusal(field: nil, problem: "is not a dictionary")
        }
        guard let activeObject = fields[.active], let active = source.boolean(activeObject) else {
            throw EntryRefusal(field: .active, problem: "is missing or not a boolean")
        }
        let stateValue: EntitlementState = try enumeration(fields[.state], .state, source)
        let periodTypeValue: PeriodType = try enumeration(fields[.periodType], .periodType, source)
        let ownershipValue: Ownership = try enumeration(fields[.ownership], .ownership, source)
        let expiresAt = fields[.expiresAt], productId = fields[.productId], products = fields[.products]
        guard let willRenewObject = fields[.willRenew], let willRenew = source.boolean(willRenewObject) else {
            throw EntryRefusal(field: .willRenew, problem: "is missing or not a boolean")
        }
        var expiry: Double?
        if let expiresAt {
            do throws(DateRefusal) { expiry = try checkedDate(expiresAt, source).timeIntervalSinceReferenceDate } catch {
                throw EntryRefusal(field: .expiresAt, problem: error.problem)
            }
        }
        var row = EntitlementTable.Row(
            active: active, state: stateValue, periodType: periodTypeValue, ownership: ownershipValue, willRenew: willRenew,
            expiresAt: expiry)
        // The product id's bytes go straight into the table (no `String` per entry).
        if let productId {
            guard source.withUTF8(ofString: productId, { builder.appendProductID($0, identity: $1, to: &row) }) != nil else {
                throw EntryRefusal(field: .productId, problem: "is not a string")
            }
        }
        if let pending = fields[.renewalPending] {
            guard let value = source.boolean(pending) else { throw EntryRefusal(field: .renewalPending, problem: "is not a boolean") }
            row.renewalPending = value
        }
        if let revocation = fields[.revocation] {
            guard let value: Revocation = source.name(revocation) else { throw notAName(revocation, .revocation, source) }
            row.revocation = value
        }
        if let products {
            guard let strings = source.strings(products) else { throw EntryRefusal(field: .products, problem: "is not an array of strings") }
            builder.setProducts(strings, of: &row)
        }
        return row
    }

    /// Inlined where an entry is read (three per entry); the refusal is worked out of line.
    @inline(__always) private static func enumeration<Value: SnapshotName, Source: SnapshotPropertyList>(
        _ object: Source.Object?, _ field: EntryField, _ source: Source
    ) throws(EntryRefusal) -> Value {
        if let object, let value: Value = source.name(object) { return value }
        throw notAName(object, field, source)
    }

    @inline(never) private static func notAName<Source: SnapshotPropertyList>(
        _ object: Source.Object?, _ field: EntryField, _ source: Source
    ) -> EntryRefusal {
        guard let object, let raw = source.string(object) else { return EntryRefusal(field: field, problem: "is missing or not a string") }
        return EntryRefusal(field: field, problem: "has unknown value '\(raw)'")
    }

    private static func rootDate<Source: SnapshotPropertyList>(
        _ object: Source.Object?, _ field: RootField, _ source: Source
    ) throws(SnapshotDecodingError) -> Date {
        do throws(DateRefusal) { return try checkedDate(object, source) } catch {
            throw .invalidField(path: field.rawValue, problem: error.problem)
        }
    }

    /// What is wrong with a date field, in the words of the field's error message.
    private struct DateRefusal: Error {
        let problem: String
    }

    /// The date in `object` if it is a finite date within ``dateRange``. Inlined where an entry
    /// is read; the refusal is worked out of line.
    @inline(__always) private static func checkedDate<Source: SnapshotPropertyList>(_ object: Source.Object?, _ source: Source) throws(DateRefusal) -> Date {
        // Finite first: `ClosedRange.contains` asks `!(upper < date)`, which a NaN passes.
        guard let object, let date = source.date(object), date.timeIntervalSince1970.isFinite, dateRange.contains(date) else {
            throw notInRange(object, source)
        }
        return date
    }

    /// Why ``checkedDate(_:_:)`` refused `object` (not a date, not finite, or outside ``dateRange``).
    @inline(never) private static func notInRange<Source: SnapshotPropertyList>(_ object: Source.Object?, _ source: Source) -> DateRefusal {
        guard let date = object.flatMap(source.date), date.timeIntervalSince1970.isFinite else {
            return DateRefusal(problem: "is missing or not a date")
        }
        return DateRefusal(problem: "is \(date.timeIntervalSince1970) s since 1970, outside 2008...2300")
    }
}

/// The values of one dictionary's fields, each kept at its name's ``SnapshotFieldName/position``:
/// storing and reading a field is an indexed store and load, not a branch on the name. The slots
/// are addressed through a pointer, not a buffer of the tuple's size: the last slot of a value
/// whose size is less than its stride ends before a buffer would count it.
struct FieldValues<Name: SnapshotFieldName, Object> {
    private var slots: (Object?, Object?, Object?, Object?, Object?, Object?, Object?, Object?, Object?, Object?, Object?, Object?) =
        (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)

    /// The most names a ``SnapshotFieldName`` may have (the slots above).
    static var capacity: Int { 12 }

    /// The value stored at `position` (a position of `Name`, below ``capacity``). Addressed
    /// through a pointer to the first slot, not a buffer of the tuple's bytes: the last slot of
    /// an `Object?` whose size is below its stride would lie past such a buffer's count.
    @inline(__always) subscript(position: Int) -> Object? {
        get {
            precondition(position >= 0 && position < Self.capacity)
            return withUnsafeBytes(of: slots) { $0.baseAddress!.assumingMemoryBound(to: Object?.self)[position] }
        }
        set {
            precondition(position >= 0 && position < Self.capacity)
            withUnsafeMutableBytes(of: &slots) { $0.baseAddress!.assumingMemoryBound(to: Object?.self)[position] = newValue }
        }
    }

    @inline(__always) subscript(name: Name) -> Object? { self[name.position] }
}

/// A fixed set of texts the schema reads (field names, enumeration values), as a
/// `String`-backed enumeration.
protocol SnapshotName: RawRepresentable, CaseIterable, Equatable, Sendable where RawValue == String, AllCases == [Self] {
    /// The column of the in-place reader's per-object table that remembers which case a string
    /// object names, for names met once per entry; `nil` for names read once per file.
    static var rememberedIn: Int? { get }
    /// The cases and their texts as bytes, made once (`static let texts = SnapshotNameTexts<Self>()`),
    /// which the in-place reader compares a string's bytes against.
    static var texts: SnapshotNameTexts<Self> { get }
}

/// The cases of a ``SnapshotName`` in `allCases` order with their texts as UTF-8 bytes, made
/// once per type, so that finding the case a string names compares the bytes of one candidate
/// (a text's length, first and last byte pick a slot of a small table), not every case's
/// `rawValue` in turn.
struct SnapshotNameTexts<Name: SnapshotName>: Sendable {
    /// `Name.allCases`.
    let cases: [Name]
    /// Every case's `rawValue` as UTF-8, one after the other.
    private let utf8: [UInt8]
    /// Where each case's text starts in ``utf8``, then where the last one ends.
    private let bounds: [Int]
    /// Per slot (``slot(count:first:last:)``): the position of the one case whose text falls in
    /// it, ``empty`` for none, ``shared`` for several (then every case is compared).
    private let slots: [Int8]

    private static var empty: Int8 { -1 }
    private static var shared: Int8 { -2 }
    private static var slotCount: Int { 64 }

    init() {
        cases = Name.allCases
        var utf8: [UInt8] = [], bounds = [0]
        var slots = [Int8](repeating: Self.empty, count: Self.slotCount)
        for (position, name) in cases.enumerated() {
            let text = Array(name.rawValue.utf8)
            let slot = Self.slot(count: text.count, first: text.first ?? 0, last: text.last ?? 0)
            slots[slot] = slots[slot] == Self.empty ? Int8(position) : Self.shared
            utf8.append(contentsOf: text)
            bounds.append(utf8.count)
        }
        self.utf8 = utf8
        self.bounds = bounds
        self.slots = slots
    }

    @inline(__always) private static func slot(count: Int, first: UInt8, last: UInt8) -> Int {
        (count &+ Int(first) &* 3 &+ Int(last) &* 5) & (slotCount &- 1)
    }

    /// The position in ``cases`` of the case whose text is `bytes` (UTF-8) byte for byte, or `nil`.
    func position(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let other = bytes.baseAddress, bytes.count > 0 else { return position(ofEmpty: ()) }
        let candidate = slots[Self.slot(count: bytes.count, first: other[0], last: other[bytes.count &- 1])]
        if candidate == Self.empty { return nil }
        return utf8.withUnsafeBufferPointer { texts in
            guard let base = texts.baseAddress else { return nil }  // no bytes only when every text is empty
            // Only the candidate's bytes, unless several texts share the slot.
            let range = candidate == Self.shared ? 0..<cases.count : Int(candidate)..<Int(candidate) &+ 1
            for position in range {
                let start = bounds[position], count = bounds[position &+ 1] &- start
                if count == bytes.count, RawBytes.equal(base + start, other, count: count) { return position }
            }
            return nil
        }
    }

    /// The position of the case whose text is empty, if there is one.
    private func position(ofEmpty: Void) -> Int? {
        cases.indices.first { bounds[$0] == bounds[$0 &+ 1] }
    }
}

/// The names of a dictionary's fields (at most ``FieldValues/capacity``).
protocol SnapshotFieldName: SnapshotName {
    /// The name's position in `allCases` (written out so that it is a constant where the case is).
    var position: Int { get }
}

extension EntitlementState: SnapshotName {
    static var rememberedIn: Int? { 1 }
    static let texts = SnapshotNameTexts<Self>()
}
extension PeriodType: SnapshotName {
    static var rememberedIn: Int? { 2 }
    static let texts = SnapshotNameTexts<Self>()
}
extension Ownership: SnapshotName {
    static var rememberedIn: Int? { 3 }
    static let texts = SnapshotNameTexts<Self>()
}
extension SnapshotDevice: SnapshotName {
    static var rememberedIn: Int? { nil }  // read once per file
    static let texts = SnapshotNameTexts<Self>()
}
extension Revocation: SnapshotName {
    static var rememberedIn: Int? { nil }  // only revoked entries carry one
    static let texts = SnapshotNameTexts<Self>()
}

/// What ``SnapshotSchema`` reads from a property list, whatever its form: a decoded
/// ``PropertyListValue`` tree, or a binary file read in place. Every answer follows the
/// value's meaning, not its encoding (a key is the same name in ASCII or UTF-16).
protocol SnapshotPropertyList {
    associatedtype Object

    /// Calls `body` with the ``SnapshotFieldName/position`` of the name and the value of each
    /// entry of the dictionary `object` whose key is one of `Name`'s texts (compared as Swift
    /// strings compare); `false`, without calling it, when `object` is not a dictionary.
    func forEachField<Name: SnapshotFieldName>(of object: Object, as name: Name.Type, _ body: (Int, Object) -> Void) -> Bool

    /// How many entries the dictionary `object` has; `nil` when it is not a dictionary.
    func entryCount(of object: Object) -> Int?

    /// Calls `body` with each entry of the dictionary `object` (nothing when it is not one).
    func forEachEntry(of object: Object, _ body: (String, Object) throws(SnapshotDecodingError) -> Void) throws(SnapshotDecodingError)

    /// The case of `Name` whose text the string `object` holds; `nil` for another text or kind.
    func name<Name: SnapshotName>(_ object: Object) -> Name?
    func boolean(_ object: Object) -> Bool?
    /// Strictly an integer (a real is not one).
    func integer(_ object: Object) -> Int64?
    func real(_ object: Object) -> Double?
    func date(_ object: Object) -> Date?
    func string(_ object: Object) -> String?
    /// The strings of the array `object`; `nil` when it is not an array or holds anything else.
    func strings(_ object: Object) -> [String]?
    /// `body`'s answer for the UTF-8 bytes of the string `object` (valid only inside `body`) and
    /// a number that is the same wherever the same string is used (`nil` when there is none);
    /// `nil`, without calling `body`, for another kind.
    func withUTF8<Result>(ofString object: Object, _ body: (UnsafeBufferPointer<UInt8>, Int?) -> Result) -> Result?
    /// What `object` is, for an error message ("an array").
    func kindInWords(_ object: Object) -> String
}
