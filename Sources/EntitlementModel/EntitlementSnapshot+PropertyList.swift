import Foundation
import PropertyList

extension EntitlementSnapshot {
    /// The key under which the snapshot lives in the shared defaults suite. Other keys in the
    /// suite belong to other writers and are left alone.
    public static let defaultsKey = "entitlementSnapshot"

    /// The snapshot as a property-list dictionary. `nextTransition` and each `expiresAt` /
    /// `productId` are omitted when absent (a property list has no null).
    public var propertyList: PropertyListValue {
        var root: [String: PropertyListValue] = [
            "schemaVersion": .integer(Int64(schemaVersion)),
            "generation": .integer(generation),
            "issuedAt": .date(issuedAt),
        ]
        if let nextTransition { root["nextTransition"] = .date(nextTransition) }
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
    /// an unknown schema version, a missing field, an unknown state, a negative generation or a
    /// date that is not finite.
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
        guard let table = root["entitlements"]?.dictionaryValue else {
            throw .invalidField(path: "entitlements", problem: "is missing or not a dictionary")
        }
        var entitlements: [String: EntitlementStatus] = [:]
        for (id, entryValue) in table {
            let path = "entitlements.\(id)"
            guard let entry = entryValue.dictionaryValue else { throw .invalidField(path: path, problem: "is not a dictionary") }
            guard let active = entry["active"]?.boolValue else { throw .invalidField(path: path + ".active", problem: "is missing or not a boolean") }
            let state: EntitlementState = try Self.enumeration(entry["state"], path: path + ".state")
            let periodType: PeriodType = try Self.enumeration(entry["periodType"], path: path + ".periodType")
            let ownership: Ownership = try Self.enumeration(entry["ownership"], path: path + ".ownership")
            guard let willRenew = entry["willRenew"]?.boolValue else {
                throw .invalidField(path: path + ".willRenew", problem: "is missing or not a boolean")
            }
            let expiresAt = try entry["expiresAt"].map { v throws(SnapshotDecodingError) in try Self.date(v, path: path + ".expiresAt") }
            var productId: String?
            if let value = entry["productId"] {
                guard let string = value.stringValue else { throw .invalidField(path: path + ".productId", problem: "is not a string") }
                productId = string
            }
            entitlements[id] = EntitlementStatus(
                active: active, state: state, periodType: periodType, expiresAt: expiresAt,
                productId: productId, willRenew: willRenew, ownership: ownership)
        }
        self.init(
            schemaVersion: Int(version), generation: generation, issuedAt: issuedAt,
            nextTransition: nextTransition, entitlements: entitlements)
    }

    /// Earliest and latest instants a snapshot may name: the App Store did not exist before
    /// 2008, and the engine never computes a date past 2300 from events capped at 2200. Anything
    /// outside is corrupt or forged (and would trap date formatting far enough out).
    static let dateRange = Date(timeIntervalSince1970: 1_199_145_600)...Date(timeIntervalSince1970: 10_413_792_000)

    private static func date(_ value: PropertyListValue?, path: String) throws(SnapshotDecodingError) -> Date {
        guard let date = value?.dateValue, date.timeIntervalSince1970.isFinite else {
            throw .invalidField(path: path, problem: "is missing or not a date")
        }
        guard dateRange.contains(date) else {
            throw .invalidField(path: path, problem: "is \(date.timeIntervalSince1970) s since 1970, outside 2008...2300")
        }
        return date
    }

    private static func enumeration<E: RawRepresentable>(_ value: PropertyListValue?, path: String) throws(SnapshotDecodingError) -> E
    where E.RawValue == String {
        guard let raw = value?.stringValue else { throw .invalidField(path: path, problem: "is missing or not a string") }
        guard let parsed = E(rawValue: raw) else { throw .invalidField(path: path, problem: "has unknown value '\(raw)'") }
        return parsed
    }
}
