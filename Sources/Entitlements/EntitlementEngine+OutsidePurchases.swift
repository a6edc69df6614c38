#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

/// Access that no in-app purchase gives: the app bought while it was paid (the catalog's
/// `paidAppGrant` and an app transaction) and the developer's grants (`grantKeys`).
extension EntitlementEngine {
    /// What the app transactions and grants give `entitlement` at `now`, or `nil` when they give
    /// nothing (no such fact, or only revoked grants).
    ///
    /// - A Production app transaction of the catalog's app that ``PaidAppGrant/covers(_:)``
    ///   grants the catalog's `paidAppGrant` entitlement for good: `purchased`, ownership `paidApp`.
    /// - A grant in force gives its entitlement: `purchased` with no `expiresDate`, else
    ///   `subscribed` until it; after it, `expired`. A revoked grant gives nothing.
    /// - Under `signatures: required` only signed app transactions and grants count; a signed
    ///   grant counts while `grantKeys` names its key.
    func outsidePurchaseStatus(of entitlement: String, _ facts: FactStore, now: Date) -> EntitlementStatus? {
        let signedOnly = catalog.signatures.requirement == .required
        if let paidApp = catalog.paidAppGrant, paidApp.entitlement == entitlement,
            facts.appTransactions.values.contains(where: { app in
                app.environment == .production && app.bundleId == catalog.bundleId && (app.isSigned || !signedOnly)
                    && catalog.counts(FactOrigin(bundleId: app.bundleId, environment: app.environment)) && paidApp.covers(app)
            })
        {
            return EntitlementStatus(active: true, state: .purchased, ownership: .paidApp)
        }
        var best: EntitlementStatus?
        var bestEnd = Date.distantPast
        for grant in facts.grants.values
        where grant.entitlement == entitlement && grant.bundleId == catalog.bundleId && !grant.revoked && isSignedWithKnownKey(grant, signedOnly) {
            let status: EntitlementStatus
            let end = grant.expiresDate ?? .distantFuture
            if let expires = grant.expiresDate {
                status = now < expires
                    ? EntitlementStatus(active: true, state: .subscribed, expiresAt: expires, ownership: .granted)
                    : EntitlementStatus(active: false, state: .expired, ownership: .granted)
            } else {
                status = EntitlementStatus(active: true, state: .purchased, ownership: .granted)
            }
            // The grant that ends last decides (one without an end first).
            if best == nil || end > bestEnd {
                best = status
                bestEnd = end
            }
        }
        return best
    }

    /// Whether `grant` counts under the catalog's keys: signed with a key it still names, or
    /// unsigned where signatures are optional.
    private func isSignedWithKnownKey(_ grant: EntitlementGrant, _ signedOnly: Bool) -> Bool {
        guard let keyId = grant.keyId else { return !signedOnly }
        return catalog.signatures.grantKeys[keyId] != nil
    }

    /// Which of an entitlement's two statuses decides: `outside` (from ``outsidePurchaseStatus(of:_:now:)``)
    /// when it is active and `purchases` is not, or when both are and `outside` lasts longer
    /// (no end beats an end); `outside` also when no purchase was ever made. Otherwise
    /// `purchases`. While `outside` decides, `products` still lists the purchases granting it.
    static func deciding(_ purchases: EntitlementStatus, _ outside: EntitlementStatus) -> EntitlementStatus {
        let outsideWins: Bool
        if outside.active != purchases.active {
            outsideWins = outside.active
        } else if outside.active {
            let outsideEnd = outside.expiresAt ?? .distantFuture, purchasesEnd = purchases.expiresAt ?? .distantFuture
            outsideWins = outsideEnd > purchasesEnd
        } else {
            outsideWins = purchases.state == .notPurchased
        }
        guard outsideWins else { return purchases }
        var status = outside
        status.products = purchases.active ? purchases.products : []
        return status
    }
}
