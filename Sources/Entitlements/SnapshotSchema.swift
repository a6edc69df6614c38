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
/// read them through here, from the value the property-list decoder built.
///
/// Anything unexpected is an error, never a default: an unknown schema version, a missing
/// field, an unknown state, a negative generation, a date that is not finite or outside
/// ``dateRange``, half a boot reading, or a history id that is not one. Keys other than these
/// names are ignored.
package enum SnapshotSchema {
    /// The suite file's key for the snapshot; other keys belong to other writers.
    enum SuiteField: String {
        case snapshot = "entitlementSnapshot"
    }

    /// The snapshot dictionary's fields. `bootId` and `bootTimeNanoseconds` (the boot id and
    /// `CLOCK_BOOTTIME` at issue) are both present or both absent; `historyId` (the history the
    /// generation counts in) is optional, absent from snapshots written before it existed;
    /// so are `unmappedProducts` and `introOfferIneligibleGroups` (read as empty);
    /// `companionSyncedAt` (a date) is absent before the first sync with the companion, and
    /// `device` (`phone` or `watch`) is absent on a phone. In key order, as a dictionary's members.
    enum RootField: String, CaseIterable {
        case bootId, bootTimeNanoseconds, companionSyncedAt, device, entitlements, generation, historyId, introOfferIneligibleGroups
        case issuedAt, nextTransition, schemaVersion, unmappedProducts
    }

    /// An entitlement entry's fields, in key order; `expiresAt`, `productId`, `products`, `revocation`
    /// and `renewalPending` are optional (without `products`, the deciding product alone while
    /// active, which the writer leaves out; without `renewalPending`, false).
    enum EntryField: String, CaseIterable {
        case active, expiresAt, ownership, periodType, productId, products, renewalPending, revocation, state, willRenew
    }

    /// Earliest and latest instants a snapshot may name: the App Store did not exist before
    /// 2008, and the engine never computes a date past 2300 from events capped at 2200. Anything
    /// outside is corrupt or forged (and would trap date formatting far enough out).
    package static let dateRange = Date(timeIntervalSince1970: 1_199_145_600)...Date(timeIntervalSince1970: 10_413_792_000)

    /// The snapshot stored under ``SuiteField/snapshot`` in a suite file's root.
    static func snapshot(inSuiteRoot root: PropertyListValue) throws(SnapshotFileDecodingError) -> EntitlementSnapshot {
        guard case .dictionary(let suite) = root else { throw .rootNotDictionary(kind: root.kindInWords) }
        guard let stored = suite[SuiteField.snapshot.rawValue] else { throw .snapshot(.missing) }
        do throws(SnapshotDecodingError) { return try snapshot(stored) } catch { throw .snapshot(error) }
    }

    /// The snapshot in the dictionary `value`, checked field by field in a fixed order, its
    /// entries in ascending id order (so a snapshot with several problems is always refused for
    /// the same one).
    static func snapshot(_ value: PropertyListValue) throws(SnapshotDecodingError) -> EntitlementSnapshot {
        guard case .dictionary(let fields) = value else { throw .invalidField(path: "", problem: "is not a dictionary") }
        func field(_ name: RootField) -> PropertyListValue? { fields[name.rawValue] }
        // Any integral number (1.0 included).
        guard let version = field(.schemaVersion)?.integerValue else {
            throw .invalidField(path: "schemaVersion", problem: "is missing or not an integer")
        }
        guard version == Int64(EntitlementSnapshot.currentSchemaVersion) else { throw .unknownSchemaVersion(version) }
        // Strictly an integer: a real such as 8.0 is a wrong type, not a generation.
        guard case .integer(let generation)? = field(.generation), generation >= 0 else {
            throw .invalidField(path: "generation", problem: "is missing or not a non-negative integer")
        }
        let issued = try rootDate(field(.issuedAt), .issuedAt)
        let next = try field(.nextTransition).map { value throws(SnapshotDecodingError) in try rootDate(value, .nextTransition) }
        let issuedIn = try bootInstant(bootID: field(.bootId), bootTime: field(.bootTimeNanoseconds))
        var historyID: String?
        if let history = field(.historyId) {
            guard let id = history.stringValue, EntitlementSnapshot.isValid(historyID: id) else {
                throw .invalidField(
                    path: RootField.historyId.rawValue,
                    problem: "is not 1 to \(EntitlementSnapshot.maximumHistoryIDLength) printable ASCII characters")
            }
            historyID = id
        }
        guard case .dictionary(let table)? = field(.entitlements) else {
            throw .invalidField(path: "entitlements", problem: "is missing or not a dictionary")
        }
        var ids: [String] = [], statuses: [EntitlementStatus] = []
        ids.reserveCapacity(table.count)
        statuses.reserveCapacity(table.count)
        for (id, entry) in table {
            do throws(EntryRefusal) { statuses.append(try status(entry)) } catch {
                let path = error.field.map { "entitlements.\(id).\($0.rawValue)" } ?? "entitlements.\(id)"
                throw .invalidField(path: path, problem: error.problem)
            }
            ids.append(id)
        }
        var snapshot = EntitlementSnapshot(
            schemaVersion: Int(version), generation: generation, issuedAt: issued, nextTransition: next,
            entitlements: EntitlementTable(ascendingIDs: ids, statuses: statuses), issuedIn: issuedIn, historyID: historyID,
            unmappedProducts: try optionalStrings(field(.unmappedProducts), .unmappedProducts),
            introOfferIneligibleGroups: try optionalStrings(field(.introOfferIneligibleGroups), .introOfferIneligibleGroups))
        snapshot.companionSyncedAt = try field(.companionSyncedAt).map { value throws(SnapshotDecodingError) in try rootDate(value, .companionSyncedAt) }
        if let device = field(.device) {
            guard let text = device.stringValue, let value = SnapshotDevice(rawValue: text) else {
                throw .invalidField(path: RootField.device.rawValue, problem: "is not phone or watch")
            }
            snapshot.device = value
        }
        return snapshot
    }

    /// An optional list of strings (a snapshot written before the field has none: empty).
    private static func optionalStrings(_ value: PropertyListValue?, _ field: RootField) throws(SnapshotDecodingError) -> [String] {
        guard let value else { return [] }
        guard let strings = strings(value) else { throw .invalidField(path: field.rawValue, problem: "is not an array of strings") }
        return strings
    }

    /// The boot reading: `nil` when both fields are absent; refused when only one is there or
    /// either is not what ``BootInstant`` accepts.
    private static func bootInstant(bootID: PropertyListValue?, bootTime: PropertyListValue?) throws(SnapshotDecodingError) -> BootInstant? {
        if bootID == nil, bootTime == nil { return nil }
        guard let id = bootID?.stringValue, BootInstant.isValid(bootID: id) else {
            throw .invalidField(
                path: RootField.bootId.rawValue, problem: "is missing or not 1 to \(BootInstant.maximumBootIDLength) printable ASCII characters")
        }
        // Strictly an integer, like `generation`.
        guard case .integer(let nanoseconds)? = bootTime, let instant = BootInstant(bootID: id, nanosecondsSinceBoot: nanoseconds) else {
            throw .invalidField(path: RootField.bootTimeNanoseconds.rawValue, problem: "is missing or not a non-negative integer")
        }
        return instant
    }

    /// A refused entry field (`nil` for the entry itself) and what is wrong with it.
    private struct EntryRefusal: Error {
        var field: EntryField?
        var problem: String
    }

    /// The entry `value` as a status: its members walked once in key order, then checked in a fixed order.
    private static func status(_ value: PropertyListValue) throws(EntryRefusal) -> EntitlementStatus {
        guard case .dictionary(let fields) = value else { throw EntryRefusal(field: nil, problem: "is not a dictionary") }
        var position = 0
        func next(_ name: EntryField) -> PropertyListValue? { fields.value(forKey: name.rawValue, from: &position) }
        let isActive = next(.active), expiry = next(.expiresAt), owner = next(.ownership), period = next(.periodType), product = next(.productId)
        let granting = next(.products), pending = next(.renewalPending), reason = next(.revocation), stateName = next(.state), renews = next(.willRenew)
        guard let active = isActive?.boolValue else { throw EntryRefusal(field: .active, problem: "is missing or not a boolean") }
        let state: EntitlementState = try enumeration(stateName, .state)
        let periodType: PeriodType = try enumeration(period, .periodType)
        let ownership: Ownership = try enumeration(owner, .ownership)
        guard let willRenew = renews?.boolValue else { throw EntryRefusal(field: .willRenew, problem: "is missing or not a boolean") }
        var expiresAt: Date?
        if let expiry {
            do throws(DateRefusal) { expiresAt = try checkedDate(expiry) } catch {
                throw EntryRefusal(field: .expiresAt, problem: error.problem)
            }
        }
        var productId: String?
        if let product {
            guard let id = product.stringValue else { throw EntryRefusal(field: .productId, problem: "is not a string") }
            productId = id
        }
        var renewalPending = false
        if let pending {
            guard let value = pending.boolValue else { throw EntryRefusal(field: .renewalPending, problem: "is not a boolean") }
            renewalPending = value
        }
        var revocation: Revocation?
        if let reason { revocation = try enumeration(reason, .revocation) as Revocation }
        var products: [String]?
        if let granting {
            guard let strings = strings(granting) else { throw EntryRefusal(field: .products, problem: "is not an array of strings") }
            products = strings
        }
        return EntitlementStatus(
            active: active, state: state, periodType: periodType, expiresAt: expiresAt, productId: productId, willRenew: willRenew,
            ownership: ownership, products: products, revocation: revocation, renewalPending: renewalPending)
    }

    /// The case of `Value` whose text `value` holds.
    private static func enumeration<Value: RawRepresentable<String> & CaseIterable>(_ value: PropertyListValue?, _ field: EntryField) throws(EntryRefusal) -> Value {
        guard let text = value?.stringValue else { throw EntryRefusal(field: field, problem: "is missing or not a string") }
        guard let known = Value.allCases.first(where: { $0.rawValue == text }) else {
            throw EntryRefusal(field: field, problem: "has unknown value '\(text)'")
        }
        return known
    }

    /// The strings of the array `value`; `nil` when it is not an array or holds anything else.
    private static func strings(_ value: PropertyListValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    private static func rootDate(_ value: PropertyListValue?, _ field: RootField) throws(SnapshotDecodingError) -> Date {
        do throws(DateRefusal) { return try checkedDate(value) } catch {
            throw .invalidField(path: field.rawValue, problem: error.problem)
        }
    }

    /// What is wrong with a date field, in the words of the field's error message.
    private struct DateRefusal: Error { let problem: String }

    /// The date in `value` if it is a finite date within ``dateRange``.
    private static func checkedDate(_ value: PropertyListValue?) throws(DateRefusal) -> Date {
        guard let date = value?.dateValue, date.timeIntervalSince1970.isFinite else { throw DateRefusal(problem: "is missing or not a date") }
        // Finite first: `ClosedRange.contains` asks `!(upper < date)`, which a NaN passes.
        guard dateRange.contains(date) else {
            throw DateRefusal(problem: "is \(date.timeIntervalSince1970) s since 1970, outside 2008...2300")
        }
        return date
    }
}
