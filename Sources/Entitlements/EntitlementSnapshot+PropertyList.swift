import PropertyList

extension EntitlementSnapshot {
    /// The key of the snapshot in the shared defaults suite; other keys belong to other writers.
    public static let defaultsKey = SnapshotSchema.SuiteField.snapshot.rawValue

    /// The keys of ``issuedIn``: the boot id (a string) and `CLOCK_BOOTTIME` at issue (an
    /// integer, nanoseconds). Both present or both absent; a snapshot without them (written
    /// before they existed, or by an issuer without a boot clock) is floored by `issuedAt` alone.
    public static let bootIDKey = SnapshotSchema.RootField.bootId.rawValue
    /// The key of ``issuedIn``'s boot clock reading (see ``bootIDKey``).
    public static let bootTimeKey = SnapshotSchema.RootField.bootTimeNanoseconds.rawValue
    /// The key of ``historyID`` (a string), absent when the snapshot has none.
    public static let historyIDKey = SnapshotSchema.RootField.historyId.rawValue

    /// The snapshot as a property-list dictionary, with the fields `SnapshotSchema` names.
    /// `nextTransition`, `issuedIn`, `historyID`, `companionSyncedAt` and each `expiresAt` /
    /// `productId` are omitted when absent (a property list has no null), `device` on a phone, and
    /// an entry's `products` when its absence means the same (`SnapshotSchema.EntryField`).
    public var propertyList: PropertyListValue {
        var root = PropertyListDictionary(minimumCapacity: SnapshotSchema.RootField.allCases.count)
        for field in SnapshotSchema.RootField.allCases {
            switch field {
            case .schemaVersion: root[field.rawValue] = .integer(Int64(schemaVersion))
            case .generation: root[field.rawValue] = .integer(generation)
            case .issuedAt: root[field.rawValue] = .date(issuedAt)
            case .nextTransition: root[field.rawValue] = nextTransition.map { .date($0) }
            case .bootId: root[field.rawValue] = issuedIn.map { .string($0.bootID) }
            case .bootTimeNanoseconds: root[field.rawValue] = issuedIn.map { .integer($0.nanosecondsSinceBoot) }
            case .historyId: root[field.rawValue] = historyID.map { .string($0) }
            case .entitlements:
                var table = PropertyListDictionary(minimumCapacity: entitlements.count)
                for (id, status) in entitlements { table[id] = status.propertyList }
                root[field.rawValue] = .dictionary(table)
            case .unmappedProducts: root[field.rawValue] = .array(unmappedProducts.map { .string($0) })
            case .introOfferIneligibleGroups: root[field.rawValue] = .array(introOfferIneligibleGroups.map { .string($0) })
            case .companionSyncedAt: root[field.rawValue] = companionSyncedAt.map { .date($0) }
            case .device: root[field.rawValue] = device == .phone ? nil : .string(device.rawValue)
            }
        }
        return .dictionary(root)
    }

    /// Decodes and validates a snapshot as `SnapshotSchema` describes it. Anything unexpected
    /// is an error, never a default: an unknown schema version, a missing field, an unknown
    /// state, a negative generation, a date that is not finite, half a boot reading (one of
    /// ``bootIDKey`` and ``bootTimeKey`` without the other, or either out of range), or a
    /// ``historyIDKey`` that ``isValid(historyID:)`` refuses.
    public init(propertyList value: PropertyListValue) throws(SnapshotDecodingError) {
        self = try SnapshotSchema.snapshot(value)
    }
}

extension EntitlementStatus {
    /// The entry as a property-list dictionary, with the fields `SnapshotSchema` names.
    var propertyList: PropertyListValue {
        var entry = PropertyListDictionary(minimumCapacity: SnapshotSchema.EntryField.allCases.count)
        for field in SnapshotSchema.EntryField.allCases {
            let value: PropertyListValue? = switch field {
            case .active: .boolean(active)
            case .state: .string(state.rawValue)
            case .periodType: .string(periodType.rawValue)
            case .ownership: .string(ownership.rawValue)
            case .willRenew: .boolean(willRenew)
            case .expiresAt: expiresAt.map { .date($0) }
            case .productId: productId.map { .string($0) }
            case .products: hasDefaultProducts ? nil : .array(products.map { .string($0) })
            case .revocation: revocation.map { .string($0.rawValue) }
            case .renewalPending: renewalPending ? .boolean(true) : nil
            }
            if let value { entry[field.rawValue] = value }
        }
        return .dictionary(entry)
    }

    /// Whether ``products`` are ``defaultProducts(active:productId:)``, which a snapshot leaves out.
    private var hasDefaultProducts: Bool { active ? products.count == (productId == nil ? 0 : 1) && products.first == productId : products.isEmpty }
}
