#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

extension EntitlementSnapshot {
    /// The key under which the snapshot lives in the shared defaults suite. Other keys in the
    /// suite belong to other writers and are left alone.
    public static let defaultsKey = "entitlementSnapshot"

    /// The keys of ``issuedIn``: the boot id (a string) and `CLOCK_BOOTTIME` at issue (an
    /// integer, nanoseconds). Both present or both absent; a snapshot without them (written
    /// before they existed, or by an issuer without a boot clock) is floored by `issuedAt` alone.
    public static let bootIDKey = "bootId"
    /// The key of ``issuedIn``'s boot clock reading (see ``bootIDKey``).
    public static let bootTimeKey = "bootTimeNanoseconds"

    /// The snapshot as a property-list dictionary. `nextTransition`, `issuedIn` and each
    /// `expiresAt` / `productId` are omitted when absent (a property list has no null).
    public var propertyList: PropertyListValue {
        var root: [String: PropertyListValue] = [
            "schemaVersion": .integer(Int64(schemaVersion)),
            "generation": .integer(generation),
            "issuedAt": .date(issuedAt),
        ]
        if let nextTransition { root["nextTransition"] = .date(nextTransition) }
        if let issuedIn {
            root[Self.bootIDKey] = .string(issuedIn.bootID)
            root[Self.bootTimeKey] = .integer(issuedIn.nanosecondsSinceBoot)
        }
        var table: [String: PropertyListValue] = [:]
        for (id, status) in entitlements {
            var entry: [String: PropertyListValue] = [
                "active": .boolean(status.active),
                "state": .string(status.state.rawValue),
                "periodType": .string(status.periodType.rawValue),
                "willRenew": .boolean(status.willRenew),
                "ownership": .string(status.ownership.rawValue),
            ]
            if let expiresAt = status.expiresAt { entry["expiresAt"] = .date(expiresAt) }
            if let productId = status.productId { entry["productId"] = .string(productId) }
            table[id] = .dictionary(entry)
        }
        root["entitlements"] = .dictionary(table)
        return .dictionary(root)
    }

    /// Decodes and validates a snapshot. Anything unexpected is an error, never a default:
    /// an unknown schema version, a missing field, an unknown state, a negative generation, a
    /// date that is not finite, or half a boot reading (one of ``bootIDKey`` and ``bootTimeKey``
    /// without the other, or either out of range).
    public init(propertyList value: PropertyListValue) throws(SnapshotDecodingError) {
        guard let root = value.dictionaryValue else { throw .invalidField(path: "", problem: "is not a dictionary") }
        guard let version = root["schemaVersion"]?.integerValue else {
            throw .invalidField(path: "schemaVersion", problem: "is missing or not an integer")
        }
        guard version == Int64(Self.currentSchemaVersion) else { throw .unknownSchemaVersion(version) }
        // Strictly an integer: a real such as 8.0 is a wrong type, not a generation.
        guard case .integer(let generation)? = root["generation"], generation >= 0 else {
            throw .invalidField(path: "generation", problem: "is missing or not a non-negative integer")
        }
        let issuedAt = try Self.date(root["issuedAt"], path: "issuedAt")
        let nextTransition = try root["nextTransition"].map { v throws(SnapshotDecodingError) in try Self.date(v, path: "nextTransition") }
        let issuedIn = try Self.bootInstant(bootID: root[Self.bootIDKey], bootTime: root[Self.bootTimeKey])
        guard let table = root["entitlements"]?.dictionaryValue else {
            throw .invalidField(path: "entitlements", problem: "is missing or not a dictionary")
        }
        var entitlements = [String: EntitlementStatus](minimumCapacity: table.count)
        for (id, entryValue) in table {
            // The field path ("entitlements.<id>.<field>") is built only when an entry is refused.
            do throws(EntryFieldError) {
                entitlements[id] = try Self.status(entryValue)
            } catch {
                let path = error.field.utf8CodeUnitCount == 0 ? "entitlements.\(id)" : "entitlements.\(id).\(error.field)"
                throw .invalidField(path: path, problem: error.problem)
            }
        }
        self.init(
            schemaVersion: Int(version), generation: generation, issuedAt: issuedAt,
            nextTransition: nextTransition, entitlements: entitlements, issuedIn: issuedIn)
    }

    /// The boot reading stored under ``bootIDKey`` and ``bootTimeKey``: `nil` when both are
    /// absent; refused when only one is there or either is not what ``BootInstant`` accepts
    /// (the in-place decoder applies the same rule through ``BootInstant/init(bootID:nanosecondsSinceBoot:)``).
    static func bootInstant(bootID: PropertyListValue?, bootTime: PropertyListValue?) throws(SnapshotDecodingError) -> BootInstant? {
        if bootID == nil, bootTime == nil { return nil }
        guard case .string(let id)? = bootID, BootInstant.isValid(bootID: id) else {
            throw .invalidField(path: bootIDKey, problem: "is missing or not 1 to \(BootInstant.maximumBootIDLength) printable ASCII characters")
        }
        // Strictly an integer, like `generation`.
        guard case .integer(let nanoseconds)? = bootTime, let instant = BootInstant(bootID: id, nanosecondsSinceBoot: nanoseconds) else {
            throw .invalidField(path: bootTimeKey, problem: "is missing or not a non-negative integer")
        }
        return instant
    }

    /// Earliest and latest instants a snapshot may name: the App Store did not exist before
    /// 2008, and the engine never computes a date past 2300 from events capped at 2200. Anything
    /// outside is corrupt or forged (and would trap date formatting far enough out).
    static let dateRange = Date(timeIntervalSince1970: 1_199_145_600)...Date(timeIntervalSince1970: 10_413_792_000)

    /// A refused entry field, named relative to its entry (`""` for the entry itself).
    private struct EntryFieldError: Error {
        var field: StaticString
        var problem: String
    }

    private static func status(_ entryValue: PropertyListValue) throws(EntryFieldError) -> EntitlementStatus {
        guard let entry = entryValue.dictionaryValue else { throw EntryFieldError(field: "", problem: "is not a dictionary") }
        guard let active = entry["active"]?.boolValue else { throw EntryFieldError(field: "active", problem: "is missing or not a boolean") }
        let state: EntitlementState = try entryEnumeration(entry["state"], field: "state")
        let periodType: PeriodType = try entryEnumeration(entry["periodType"], field: "periodType")
        let ownership: Ownership = try entryEnumeration(entry["ownership"], field: "ownership")
        guard let willRenew = entry["willRenew"]?.boolValue else {
            throw EntryFieldError(field: "willRenew", problem: "is missing or not a boolean")
        }
        var expiresAt: Date?
        if let value = entry["expiresAt"] {
            do throws(DateRefusal) { expiresAt = try checkedDate(value) } catch {
                throw EntryFieldError(field: "expiresAt", problem: error.problem)
            }
        }
        var productId: String?
        if let value = entry["productId"] {
            guard let string = value.stringValue else { throw EntryFieldError(field: "productId", problem: "is not a string") }
            productId = string
        }
        return EntitlementStatus(
            active: active, state: state, periodType: periodType, expiresAt: expiresAt, productId: productId, willRenew: willRenew,
            ownership: ownership)
    }

    private static func entryEnumeration<E: RawRepresentable>(_ value: PropertyListValue?, field: StaticString) throws(EntryFieldError) -> E
    where E.RawValue == String {
        guard let raw = value?.stringValue else { throw EntryFieldError(field: field, problem: "is missing or not a string") }
        guard let parsed = E(rawValue: raw) else { throw EntryFieldError(field: field, problem: "has unknown value '\(raw)'") }
        return parsed
    }

    private static func date(_ value: PropertyListValue?, path: String) throws(SnapshotDecodingError) -> Date {
        do throws(DateRefusal) { return try checkedDate(value) } catch { throw .invalidField(path: path, problem: error.problem) }
    }

    /// What is wrong with a date field, in the words of the field's error message.
    private struct DateRefusal: Error {
        let problem: String
    }

    /// The date in `value` if it is a finite date within ``dateRange``.
    private static func checkedDate(_ value: PropertyListValue?) throws(DateRefusal) -> Date {
        guard let date = value?.dateValue, date.timeIntervalSince1970.isFinite else { throw DateRefusal(problem: "is missing or not a date") }
        guard dateRange.contains(date) else {
            throw DateRefusal(problem: "is \(date.timeIntervalSince1970) s since 1970, outside 2008...2300")
        }
        return date
    }
}
