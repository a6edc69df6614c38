#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns facts into entitlement statuses: `transactions + renewal info + now -> statuses + next
/// transition`. Pure: the instant is passed in, nothing reads the clock.
///
/// Rules, in the order they apply:
/// 1. Per `originalTransactionId` only the latest transaction by `purchaseDate` counts (ties: newest
///    `signedDate`, then the greater `transactionId`). A product no entitlement lists is ignored;
///    so is a transaction (and renewal info) of an origin the catalog does not accept
///    (``Catalog/counts(_:)``: another app or environment), which the store keeps all the same.
/// 2. A `revocationDate` revokes (refund, family revoke: `revocation` says which); an
///    `isUpgraded` transaction and a consumable grant nothing.
/// 3. A non-consumable is `purchased` with no end. A non-renewing subscription is `purchased` for
///    the catalog's duration from `purchaseDate`. An auto-renewable subscription is `subscribed`
///    until `expiresDate`; after it, `inGracePeriod` (active, `expiresAt` = grace end) while the
///    renewal info's `gracePeriodExpiresDate` is in the future, else `inBillingRetryPeriod`
///    (inactive) when the renewal info says so, else, with the catalog's `renewalLeeway` and the
///    latest renewal info saying auto-renew is on, `subscribed` with `renewalPending` until
///    `expiresDate` plus the leeway, else `expired`.
/// 4. Per entitlement the active candidate wins: lifetime first, then not-in-grace, then within a
///    subscription group the highest level (lowest `groupNumber`), then the latest end, then
///    purchased over family-shared. With no active candidate, the one that ended last is reported.
/// 5. `periodType`: `offerType` 1 with `FREE_TRIAL` is `trial`; with no discount type the
///    catalog's introductory offer decides (`paymentMode` `free`, or no offer in the catalog, is
///    `trial`); any other introductory offer is `intro`, `offerType` 2, 3 and 4 are `promotional`,
///    `offerCode` and `winBack` (an unknown offer type `intro`), no offer `normal` (`PeriodType.of(offer:discount:catalogIntroductoryOfferIsFreeTrial:)`). `willRenew` is false for anything but an auto-renewable subscription,
///    for `autoRenewStatus` 0 and during billing problems. A pending downgrade
///    (`autoRenewProductId` different) changes nothing until the renewal transaction arrives.
/// 6. Beside purchases, an app bought while it was paid (`paidAppGrant`) and a developer's grant
///    (`grantKeys`) give access (`EntitlementEngine+OutsidePurchases.swift`); the one that lasts
///    longer decides.
public struct EntitlementEngine: Sendable {
    /// The products, groups and entitlements evaluated against.
    public let catalog: Catalog

    /// An engine for `catalog`. Cheap: it holds the catalog and nothing else.
    public init(catalog: Catalog) { self.catalog = catalog }

    /// Evaluates every catalog entitlement.
    ///
    /// Costs one step per subscription (``FactStore`` keeps the latest transaction of each
    /// `originalTransactionId` as it inserts), plus one per product and entitlement; no
    /// transaction is copied and no String hashed per subscription.
    ///
    /// - Parameters:
    ///   - facts: every transaction and renewal info known, deduplicated.
    ///   - now: the caller's clock.
    ///   - floor: a lower bound the caller keeps, e.g. the daemon's last published `issuedAt`.
    /// - Returns: statuses at `effectiveNow = max(now, facts.newestSignedDate, floor)`, so a clock
    ///   wound back never extends access.
    public func evaluate(_ facts: FactStore, now: Date, floor: Date? = nil) -> EngineResult {
        var effectiveNow = now
        if let signed = facts.newestSignedDate, signed > effectiveNow { effectiveNow = signed }
        if let floor, floor > effectiveNow { effectiveNow = floor }

        let plan = EvaluationPlan(catalog: catalog, productIds: facts.productIds)
        // Whether the facts of each origin count under this catalog: the store keeps them all.
        let verdicts = facts.origins.map(catalog.counts)
        var choices = EntitlementChoices(entitlements: plan.entitlementIds.count, groups: plan.groupCount)
        facts.storedTransactions.withUnsafeBufferPointer { transactions in
            guard let transactionBase = transactions.baseAddress else { return }
            plan.products.withUnsafeBufferPointer { products in
                plan.entitlementPositions.withUnsafeBufferPointer { entitlementPositions in
                    facts.subscriptions.withUnsafeBufferPointer { subscriptions in
                        for subscription in subscriptions.indices {
                            guard let latest = subscriptions[subscription].latest, !subscriptions[subscription].isWithheld else { continue }
                            let product = products[Int(transactions[latest].product)]
                            guard product.entitlementCount > 0, facts.counts(transactionAt: latest, verdicts, catalog: catalog),
                                let claim = Self.claim(
                                    for: transactionBase + latest, at: latest, product: product,
                                    renewal: facts.renewal(ofSubscription: subscription, verdicts, catalog: catalog), now: effectiveNow, leeway: catalog.renewalLeeway)
                            else { continue }
                            for index in product.entitlementStart..<(product.entitlementStart + product.entitlementCount) {
                                choices.offer(claim, to: entitlementPositions[index], facts: facts)
                            }
                        }
                    }
                }
            }
        }

        var statuses: [String: EntitlementStatus] = [:]
        statuses.reserveCapacity(plan.entitlementIds.count)
        var nextTransition: Date?
        let hasOutsidePurchases = !facts.appTransactions.isEmpty || !facts.grants.isEmpty
        for (position, id) in plan.entitlementIds.enumerated() {
            var status = choices.status(of: position, facts: facts)
            if hasOutsidePurchases, let outside = outsidePurchaseStatus(of: id, facts, now: effectiveNow) {
                status = Self.deciding(status, outside)
            }
            statuses[id] = status
            if status.active, let end = status.expiresAt, end > effectiveNow, nextTransition.map({ end < $0 }) ?? true {
                nextTransition = end
            }
        }
        return EngineResult(
            entitlements: statuses, nextTransition: nextTransition, effectiveNow: effectiveNow,
            introductoryOfferEligibility: introductoryOfferEligibility(facts), unmappedProducts: unmappedProducts(facts))
    }

    /// The sorted product ids of the held transactions that no catalog entitlement lists, less
    /// the products the catalog knows as consumables (which never grant, mapped or not). Such a
    /// purchase is kept: a catalog that maps it grants it at the next evaluation.
    public func unmappedProducts(_ facts: FactStore) -> [String] {
        var unmapped: [String] = []
        for (position, productId) in facts.productIds.enumerated() where facts.productUses[position].transactions > 0 {
            guard catalog.entitlementsByProduct[productId] == nil else { continue }
            if case .consumable? = catalog.products[productId]?.kind { continue }
            unmapped.append(productId)
        }
        return unmapped.sorted()
    }

    // MARK: Steps

    /// One transaction's claim on its entitlements at `now`, or `nil` when it grants nothing
    /// (rules 2 and 3). Reads the transaction in place: nothing is copied.
    private static func claim(
        for transaction: UnsafePointer<StoredTransaction>, at position: Int, product: EvaluationPlan.Product,
        renewal: FactStore.RenewalFacts?, now: Date, leeway: ISO8601Duration?
    ) -> Claim? {
        if transaction.pointee.flags.contains(.upgraded) { return nil }
        let kind: EvaluationPlan.Kind
        if let catalogKind = product.kind {
            kind = catalogKind
        } else if transaction.pointee.flags.contains(.nonConsumable) {
            kind = .nonConsumable
        } else {
            return nil  // a consumable, or a subscription without the catalog's group, level or duration
        }
        if case .consumable = kind { return nil }  // before revocation: a consumable never claims
        // The group and level come with the catalog's kind only (the fallback kind has none).
        var claim = Claim(
            active: false, state: .expired, periodType: .normal, expiresAt: nil, willRenew: false,
            ownership: transaction.pointee.flags.contains(.familyShared) ? .familyShared : .purchased,
            group: product.kind == nil ? -1 : product.group, level: product.kind == nil ? nil : product.level,
            ended: transaction.pointee.purchaseDate, position: position)

        func set(_ state: EntitlementState, active: Bool, expiresAt: Date? = nil, willRenew: Bool = false, ended: Date? = nil) {
            claim.state = state
            claim.active = active
            claim.expiresAt = active ? expiresAt : nil
            claim.willRenew = willRenew
            if let ended { claim.ended = ended }
        }

        let periodType: PeriodType
        if case .autoRenewable = kind, let offer = transaction.pointee.flags.offer {
            periodType = PeriodType.of(
                introductoryOffer: offer.introductory, discountIsFreeTrial: offer.discountIsFreeTrial,
                catalogIntroductoryOfferIsFreeTrial: product.introductoryOfferIsFreeTrial,
                otherOffer: transaction.pointee.flags.otherOfferPeriod)
        } else {
            periodType = .normal
        }
        if let revoked = transaction.pointee.revocationDate {
            claim.periodType = periodType
            claim.revocation = transaction.pointee.flags.contains(.familyRevoked) ? .familyRevoked : .refunded
            set(.revoked, active: false, ended: revoked)
            return claim
        }

        switch kind {
        case .consumable:
            return nil
        case .nonConsumable:
            set(.purchased, active: true)
        case .nonRenewing(let duration):
            guard let end = duration.map({ $0.added(to: transaction.pointee.purchaseDate) }) ?? transaction.pointee.expiresDate else {
                return nil
            }
            if now < end { set(.purchased, active: true, expiresAt: end) } else { set(.expired, active: false, ended: end) }
        case .autoRenewable:
            claim.periodType = periodType
            guard let expires = transaction.pointee.expiresDate else {
                set(.expired, active: false)
                return claim
            }
            let inRetry = renewal?.isInBillingRetryPeriod == true
            if now < expires {
                set(.subscribed, active: true, expiresAt: expires, willRenew: (renewal?.autoRenewStatus ?? true) && !inRetry)
            } else if let grace = renewal?.gracePeriodExpiresDate, now < grace {
                set(.inGracePeriod, active: true, expiresAt: grace)
            } else if inRetry {
                set(.inBillingRetryPeriod, active: false, ended: expires)
            } else if renewal?.autoRenewStatus == true, let leeway, now < leeway.added(to: expires) {
                // The renewal may not have reached the device: the latest renewal info says it renews.
                set(.subscribed, active: true, expiresAt: leeway.added(to: expires), willRenew: true)
                claim.renewalPending = true
            } else {
                set(.expired, active: false, ended: expires)
            }
        }
        return claim
    }
}
