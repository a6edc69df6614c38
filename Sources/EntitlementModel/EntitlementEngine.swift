import Foundation

/// Turns facts into entitlement statuses: `transactions + renewal info + now -> statuses + next
/// transition`. Pure: the instant is passed in, nothing reads the clock.
///
/// Rules, in the order they apply:
/// 1. Per `originalTransactionId` only the latest transaction by `purchaseDate` counts (ties: newest
///    `signedDate`, then the greater `transactionId`). A product no entitlement lists is ignored.
/// 2. A `revocationDate` revokes (refund, family revoke); an `isUpgraded` transaction and a
///    consumable grant nothing.
/// 3. A non-consumable is `purchased` with no end. A non-renewing subscription is `purchased` for
///    the catalog's duration from `purchaseDate`. An auto-renewable subscription is `subscribed`
///    until `expiresDate`; after it, `inGracePeriod` (active, `expiresAt` = grace end) while the
///    renewal info's `gracePeriodExpiresDate` is in the future, else `inBillingRetryPeriod`
///    (inactive) when the renewal info says so, else `expired`.
/// 4. Per entitlement the active candidate wins: lifetime first, then not-in-grace, then within a
///    subscription group the highest level (lowest `groupNumber`), then the latest end, then
///    purchased over family-shared. With no active candidate, the one that ended last is reported.
/// 5. `periodType`: `offerType` 1 with `FREE_TRIAL` or no discount type is `trial`, any other offer
///    `intro`, else `normal`. `willRenew` is false for anything but an auto-renewable subscription,
///    for `autoRenewStatus` 0 and during billing problems. A pending downgrade
///    (`autoRenewProductId` different) changes nothing until the renewal transaction arrives.
public struct EntitlementEngine: Sendable {
    public let catalog: Catalog

    public init(catalog: Catalog) { self.catalog = catalog }

    /// Evaluates every catalog entitlement.
    ///
    /// Costs one step per subscription (``FactStore`` keeps the latest transaction of each
    /// `originalTransactionId` as it inserts), plus one per product and entitlement; no
    /// transaction is copied and no String hashed per subscription.
    ///
    /// - Parameters:
    ///   - now: the caller's clock.
    ///   - floor: a lower bound the caller keeps, e.g. the daemon's last published `issuedAt`.
    /// - Returns: statuses at `effectiveNow = max(now, facts.newestSignedDate, floor)`, so a clock
    ///   wound back never extends access.
    public func evaluate(_ facts: FactStore, now: Date, floor: Date? = nil) -> EngineResult {
        var effectiveNow = now
        if let signed = facts.newestSignedDate, signed > effectiveNow { effectiveNow = signed }
        if let floor, floor > effectiveNow { effectiveNow = floor }

        let plan = EvaluationPlan(catalog: catalog, productIds: facts.productIds)
        var choices = EntitlementChoices(entitlements: plan.entitlementIds.count, groups: plan.groupCount)
        facts.transactionStorage.withUnsafeBufferPointer { transactions in
            facts.subscriptions.withUnsafeBufferPointer { subscriptions in
                for subscription in subscriptions.indices {
                    guard let latest = subscriptions[subscription].latest else { continue }
                    let product = plan.products[facts.transactionProducts[latest]]
                    guard !product.entitlements.isEmpty,
                        let claim = Self.claim(
                            for: transactions[latest], at: latest, product: product, renewal: subscriptions[subscription].renewalInfo,
                            now: effectiveNow)
                    else { continue }
                    for entitlement in product.entitlements {
                        choices.offer(claim, to: entitlement, transactionIds: transactions)
                    }
                }
            }
        }

        var statuses: [String: EntitlementStatus] = [:]
        statuses.reserveCapacity(plan.entitlementIds.count)
        var nextTransition: Date?
        for (position, id) in plan.entitlementIds.enumerated() {
            let status = choices.status(of: position, transactions: facts.transactionStorage)
            statuses[id] = status
            if status.active, let end = status.expiresAt, end > effectiveNow, nextTransition.map({ end < $0 }) ?? true {
                nextTransition = end
            }
        }
        return EngineResult(
            entitlements: statuses, nextTransition: nextTransition, effectiveNow: effectiveNow,
            introductoryOfferEligibility: introductoryOfferEligibility(facts))
    }

    /// Subscription group id -> whether the user may still redeem that group's introductory offer
    /// (one per group), under ``Catalog/introductoryOfferPolicy``. Revoked and upgraded
    /// transactions count as history too. One step per product the facts name.
    public func introductoryOfferEligibility(_ facts: FactStore) -> [String: Bool] {
        var eligibility: [String: Bool] = [:]
        for product in catalog.products.values {
            if case .autoRenewable(let group, _) = product.kind { eligibility[group] = true }
        }
        for (position, productId) in facts.productIds.enumerated() {
            let use = facts.productUses[position]
            guard use.transactions > 0, let product = catalog.products[productId], case .autoRenewable(let group, _) = product.kind
            else { continue }
            switch catalog.introductoryOfferPolicy {
            case .newSubscribersOnly: eligibility[group] = false
            case .oncePerGroup where use.introductoryOffers > 0: eligibility[group] = false
            case .oncePerGroup: break
            }
        }
        return eligibility
    }

    // MARK: Steps

    /// One transaction's claim on its entitlements at `now`, or `nil` when it grants nothing
    /// (rules 2 and 3).
    private static func claim(
        for transaction: StoreTransaction, at position: Int, product: EvaluationPlan.Product, renewal: RenewalInfo?, now: Date
    ) -> Claim? {
        if transaction.isUpgraded { return nil }
        let catalogKind = product.kind
        guard let kind = catalogKind ?? Self.kind(of: transaction.type), kind != .consumable else { return nil }
        let ownership: Ownership = transaction.inAppOwnershipType == .familyShared ? .familyShared : .purchased
        // The group and level come with the catalog's kind only (the fallback kinds have none).
        let group = catalogKind == nil ? -1 : product.group
        let level = catalogKind == nil ? nil : product.level

        func make(_ state: EntitlementState, active: Bool, periodType: PeriodType = .normal, expiresAt: Date? = nil,
                  willRenew: Bool = false, ended: Date? = nil) -> Claim {
            Claim(
                active: active, state: state, periodType: periodType, expiresAt: active ? expiresAt : nil, willRenew: willRenew,
                ownership: ownership, group: group, level: level, ended: ended ?? transaction.purchaseDate, position: position)
        }

        let periodType = Self.periodType(of: transaction, kind: kind)
        if let revoked = transaction.revocationDate { return make(.revoked, active: false, periodType: periodType, ended: revoked) }

        switch kind {
        case .consumable:
            return nil
        case .nonConsumable:
            return make(.purchased, active: true)
        case .nonRenewing(let duration):
            guard let end = duration.map({ $0.added(to: transaction.purchaseDate) }) ?? transaction.expiresDate else { return nil }
            return now < end ? make(.purchased, active: true, expiresAt: end) : make(.expired, active: false, ended: end)
        case .autoRenewable:
            guard let expires = transaction.expiresDate else { return make(.expired, active: false, periodType: periodType) }
            let inRetry = renewal?.isInBillingRetryPeriod == true
            if now < expires {
                let willRenew = (renewal?.autoRenewStatus ?? true) && !inRetry
                return make(.subscribed, active: true, periodType: periodType, expiresAt: expires, willRenew: willRenew)
            }
            if let grace = renewal?.gracePeriodExpiresDate, now < grace {
                return make(.inGracePeriod, active: true, periodType: periodType, expiresAt: grace)
            }
            if inRetry { return make(.inBillingRetryPeriod, active: false, periodType: periodType, ended: expires) }
            return make(.expired, active: false, periodType: periodType, ended: expires)
        }
    }

    private static func kind(of type: StoreProductType) -> ProductKind? {
        switch type {
        case .nonConsumable: .nonConsumable
        case .consumable: .consumable
        default: nil // subscriptions need the catalog's group, level or duration
        }
    }

    private static func periodType(of transaction: StoreTransaction, kind: ProductKind) -> PeriodType {
        guard case .autoRenewable = kind, let offer = transaction.offerType else { return .normal }
        if offer == .introductory, transaction.offerDiscountType == nil || transaction.offerDiscountType == .freeTrial { return .trial }
        return .intro
    }
}
