#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

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
///    `offerCode` and `winBack` (an unknown offer type `intro`), no offer `normal`
///    (`PeriodType.of(offer:discount:catalogIntroductoryOfferIsFreeTrial:)`). `willRenew` is false
///    for anything but an auto-renewable subscription, for `autoRenewStatus` 0 and during billing problems. A pending downgrade
///    (`autoRenewProductId` different) changes nothing until the renewal transaction arrives.
/// 6. Beside purchases, an app bought while it was paid (`paidAppGrant`) and a developer's grant
///    (`grantKeys`) give access (`EntitlementEngine+OutsidePurchases.swift`); the one that lasts
///    longer decides.
public struct EntitlementEngine: Sendable {
    /// The products, groups and entitlements evaluated against.
    public let catalog: Catalog

    /// An engine for `catalog`. Cheap: it holds the catalog and nothing else.
    public init(catalog: Catalog) { self.catalog = catalog }

    /// Evaluates every catalog entitlement: one step per subscription (``FactStore`` keeps the
    /// latest transaction of each `originalTransactionId` as facts arrive), plus one per entitlement.
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

        // Each entitlement's choice by its position in `ids`; each product's positions and catalog entry, looked up once.
        let ids = Array(catalog.entitlements.keys)
        var choices = [Choice](repeating: Choice(), count: ids.count)
        var productRules: [String: (entitlements: [Int], product: CatalogProduct?)] = [:]
        func rule(of productId: String) -> (entitlements: [Int], product: CatalogProduct?) {
            if let known = productRules[productId] { return known }
            let entitlements = catalog.entitlementsByProduct[productId] ?? []
            let rule = (ids.indices.filter { entitlements.contains(ids[$0]) }, catalog.products[productId])
            productRules[productId] = rule
            return rule
        }
        facts.forEachLatest { transaction in
            let rule = rule(of: transaction.productId)
            guard !rule.entitlements.isEmpty, catalog.counts(FactOrigin(bundleId: transaction.bundleId, environment: transaction.environment))
            else { return }
            let renewal = facts.renewalInfos[transaction.originalTransactionId].flatMap { catalog.counts(FactOrigin(bundleId: nil, environment: $0.environment)) ? $0 : nil }
            guard let candidate = candidate(for: transaction, rule.product, renewal: renewal, at: effectiveNow) else { return }
            for position in rule.entitlements { choices[position].add(candidate) }
        }

        var statuses: [String: EntitlementStatus] = [:]
        var nextTransition: Date?
        let hasOutsidePurchases = !facts.appTransactions.isEmpty || !facts.grants.isEmpty
        for (position, id) in ids.enumerated() {
            var status = choices[position].status
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
        for (productId, use) in facts.productUses where use.transactions > 0 && catalog.entitlementsByProduct[productId] == nil {
            if case .consumable? = catalog.products[productId]?.kind { continue }
            unmapped.append(productId)
        }
        return unmapped.sorted()
    }

    // MARK: Steps

    /// One transaction's claim on its entitlements at `now`, or `nil` when it grants nothing
    /// (rules 2 and 3). `catalogProduct` is its product in the catalog, `renewal` its
    /// subscription's renewal info when it counts.
    private func candidate(for transaction: StoreTransaction, _ catalogProduct: CatalogProduct?, renewal: RenewalInfo?, at now: Date) -> Candidate? {
        if transaction.isUpgraded { return nil }
        // A consumable never claims, nor does a subscription without the catalog's group, level or duration.
        guard let kind = catalogProduct?.kind ?? (transaction.type == .nonConsumable ? .nonConsumable : nil), kind != .consumable
        else { return nil }
        let ownership: Ownership = transaction.inAppOwnershipType == .familyShared ? .familyShared : .purchased
        var group: String?, level: Int?
        if case .autoRenewable(let g, let l) = kind { (group, level) = (g, l) }

        var periodType = PeriodType.normal
        if case .autoRenewable = kind, let offer = transaction.offerType {
            periodType = PeriodType.of(
                offer: offer, discount: transaction.offerDiscountType,
                catalogIntroductoryOfferIsFreeTrial: catalogProduct?.introductoryOffer?.isFreeTrial)
        }
        func make(
            _ state: EntitlementState, active: Bool, expiresAt: Date? = nil, willRenew: Bool = false, ended: Date? = nil, renewalPending: Bool = false
        ) -> Candidate {
            let status = EntitlementStatus(
                active: active, state: state, periodType: periodType, expiresAt: active ? expiresAt : nil, productId: transaction.productId,
                willRenew: willRenew, ownership: ownership, renewalPending: renewalPending)
            return Candidate(status: status, group: group, level: level, ended: ended ?? transaction.purchaseDate, transactionId: transaction.transactionId)
        }

        if let revoked = transaction.revocationDate {
            var candidate = make(.revoked, active: false, ended: revoked)
            candidate.status.revocation = transaction.revocationType == .familyRevoke ? .familyRevoked : .refunded
            return candidate
        }
        switch kind {
        case .consumable:
            return nil
        case .nonConsumable:
            return make(.purchased, active: true)
        case .nonRenewing(let duration):
            guard let end = duration.map({ $0.added(to: transaction.purchaseDate) }) ?? transaction.expiresDate else { return nil }
            return now < end ? make(.purchased, active: true, expiresAt: end) : make(.expired, active: false, ended: end)
        case .autoRenewable:
            guard let expires = transaction.expiresDate else { return make(.expired, active: false) }
            let inRetry = renewal?.isInBillingRetryPeriod == true
            if now < expires {
                return make(.subscribed, active: true, expiresAt: expires, willRenew: (renewal?.autoRenewStatus ?? true) && !inRetry)
            }
            if let grace = renewal?.gracePeriodExpiresDate, now < grace { return make(.inGracePeriod, active: true, expiresAt: grace) }
            if inRetry { return make(.inBillingRetryPeriod, active: false, ended: expires) }
            if renewal?.autoRenewStatus == true, let leeway = catalog.renewalLeeway, now < leeway.added(to: expires) {
                // The renewal may not have reached the device: the latest renewal info says it renews.
                return make(.subscribed, active: true, expiresAt: leeway.added(to: expires), willRenew: true, renewalPending: true)
            }
            return make(.expired, active: false, ended: expires)
        }
    }

    // MARK: Choosing (rule 4)

    private struct Candidate {
        var status: EntitlementStatus
        var group: String?
        var level: Int?
        /// When access ended (revocation, expiry); the purchase date for active candidates.
        var ended: Date
        var transactionId: String
    }

    /// One entitlement's candidates, folded as they come: the best active one (best per
    /// subscription group first, levels comparing only within a group), else the one that ended
    /// last, else not purchased. Every comparison is a strict total order on distinct
    /// transactions, so the order candidates come in does not matter.
    private struct Choice {
        var bestInGroup: [String: Candidate] = [:]
        var bestOutsideGroups: Candidate?
        var activeProducts = Set<String>()
        var endedLast: Candidate?

        mutating func add(_ candidate: Candidate) {
            guard candidate.status.active else {
                if endedLast.map({ EntitlementEngine.endedLater(candidate, than: $0) }) ?? true { endedLast = candidate }
                return
            }
            activeProducts.insert(candidate.status.productId ?? "")
            if let group = candidate.group {
                if bestInGroup[group].map({ EntitlementEngine.isBetter(candidate, than: $0, compareLevels: true) }) ?? true {
                    bestInGroup[group] = candidate
                }
            } else if bestOutsideGroups.map({ EntitlementEngine.isBetter(candidate, than: $0, compareLevels: false) }) ?? true {
                bestOutsideGroups = candidate
            }
        }

        var status: EntitlementStatus {
            var best = bestOutsideGroups
            for candidate in bestInGroup.values where best.map({ EntitlementEngine.isBetter(candidate, than: $0, compareLevels: false) }) ?? true {
                best = candidate
            }
            guard var status = best?.status else { return endedLast?.status ?? .notPurchased }
            // Every active candidate's product, the deciding one first, the others by id.
            let deciding = status.productId ?? ""
            if activeProducts.count > 1 { status.products = [deciding] + activeProducts.subtracting([deciding]).sorted() }
            return status
        }
    }

    private static func isBetter(_ a: Candidate, than b: Candidate, compareLevels: Bool) -> Bool {
        let aLifetime = a.status.expiresAt == nil, bLifetime = b.status.expiresAt == nil
        if aLifetime != bLifetime { return aLifetime }
        let aGrace = a.status.state == .inGracePeriod, bGrace = b.status.state == .inGracePeriod
        if aGrace != bGrace { return !aGrace }
        if compareLevels, let aLevel = a.level, let bLevel = b.level, aLevel != bLevel { return aLevel < bLevel }
        let aEnd = a.status.expiresAt ?? .distantFuture, bEnd = b.status.expiresAt ?? .distantFuture
        if aEnd != bEnd { return aEnd > bEnd }
        if a.status.ownership != b.status.ownership { return a.status.ownership == .purchased }
        return a.transactionId > b.transactionId
    }

    private static func endedLater(_ a: Candidate, than b: Candidate) -> Bool {
        if a.ended != b.ended { return a.ended > b.ended }
        let rank: (EntitlementState) -> Int = { state in
            switch state {
            case .inBillingRetryPeriod: 3
            case .revoked: 2
            case .expired: 1
            default: 0
            }
        }
        if rank(a.status.state) != rank(b.status.state) { return rank(a.status.state) > rank(b.status.state) }
        return a.transactionId > b.transactionId
    }
}
