import StoreKitFormats

extension Catalog {
    /// Refuses an event for another app or environment than this catalog's.
    ///
    /// A transaction must carry this catalog's `bundleId` and one of its `environments` when it names them;
    /// renewal info has no bundle identifier, so only its environment (if present) is checked; an
    /// app transaction's environment is its `receiptType`; a grant names no environment, and must
    /// give one of the catalog's entitlements.
    /// Absent fields are accepted. Where the catalog requires signatures the values come from
    /// verified payloads, so this refuses genuine data of another app or environment; where
    /// signatures are optional it guards against mix-ups, not attacks.
    /// - Throws: `EventDecodingError.foreign(field:expected:found:)` naming the field and both values.
    public func validate(_ event: StoreEvent) throws(EventDecodingError) {
        switch event {
        case .transaction(let transaction): try validate(bundleId: transaction.bundleId, environment: transaction.environment)
        case .renewalInfo(let info): try validate(bundleId: nil, environment: info.environment)
        case .appTransaction(let app): try validate(bundleId: app.bundleId, environment: app.environment)
        case .grant(let grant):
            try validate(bundleId: grant.bundleId, environment: nil)
            guard entitlements[grant.entitlement] != nil else {
                throw .invalidField(
                    path: "grant.entitlement",
                    problem: "'\(grant.entitlement)' is not one of the catalog's entitlements (\(entitlements.keys.sorted().joined(separator: ", ")))")
            }
        }
    }

    /// Whether facts of `origin` count under this catalog: the rule ``validate(_:)`` refuses new
    /// events by, applied to facts already kept. A fact that does not count grants nothing and
    /// stays kept (see ``FactOrigin``).
    public func counts(_ origin: FactOrigin) -> Bool {
        (try? validate(bundleId: origin.bundleId, environment: origin.environment)) != nil
    }

    /// The rule of ``validate(_:)`` on the two fields it reads (absent fields pass).
    private func validate(bundleId bundle: String?, environment found: StoreEnvironment?) throws(EventDecodingError) {
        if let bundle, bundle != bundleId {
            throw .foreign(field: "bundleId", expected: bundleId, found: bundle)
        }
        if let found, !environments.contains(found) {
            throw .foreign(field: "environment", expected: environments.map(\.rawValue).joined(separator: " or "), found: found.rawValue)
        }
    }
}
