import StoreKitFormats

extension EntitlementStatus {
    /// The contract's JSON for one entitlement (docs/contract.md, "JSON shapes").
    public var json: JSONValue {
        .object([
            "active": .bool(active),
            "state": .string(state.rawValue),
            "periodType": .string(periodType.rawValue),
            "expiresAt": .date(expiresAt),
            "productId": productId.map(JSONValue.string) ?? .null,
            "willRenew": .bool(willRenew),
            "ownership": .string(ownership.rawValue),
            "products": .array(products.map(JSONValue.string)),
            "revocation": revocation.map { .string($0.rawValue) } ?? .null,
            "renewalPending": .bool(renewalPending),
        ])
    }
}

extension EntitlementSnapshot {
    /// The contract's JSON: `generation`, `entitlements`, `unmappedProducts` and
    /// `introOfferIneligibleGroups`, plus `schemaVersion`, `issuedAt`,
    /// `nextTransition` (ISO 8601 or `null`), the boot it was issued in, `bootId` and
    /// `bootTimeNanoseconds` (both `null` when the snapshot has none), and `historyId` (`null`
    /// when the snapshot has none), `companionSyncedAt` (ISO 8601, `null` before the first sync with
    /// the companion) and `device` (`phone` or `watch`).
    public var json: JSONValue {
        .object([
            Self.historyIDKey: historyID.map { .string($0) } ?? .null,
            Self.bootIDKey: issuedIn.map { .string($0.bootID) } ?? .null,
            Self.bootTimeKey: issuedIn.map { .int($0.nanosecondsSinceBoot) } ?? .null,
            "schemaVersion": .int(Int64(schemaVersion)),
            "generation": .int(generation),
            "issuedAt": .date(issuedAt),
            "nextTransition": .date(nextTransition),
            "entitlements": .object(Dictionary(uniqueKeysWithValues: entitlements.lazy.map { ($0.key, $0.value.json) })),
            "unmappedProducts": .array(unmappedProducts.map(JSONValue.string)),
            "introOfferIneligibleGroups": .array(introOfferIneligibleGroups.map(JSONValue.string)),
            "companionSyncedAt": .date(companionSyncedAt),
            "device": .string(device.rawValue),
        ])
    }
}
