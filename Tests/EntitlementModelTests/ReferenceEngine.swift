import Foundation
@testable import EntitlementModel

/// The engine as it was before facts were indexed (EntitlementEngine.swift at e4631f4, renamed):
/// it regroups every transaction on every evaluation. Kept verbatim as the reference the indexed
/// engine must agree with on random fact sets (EngineDifferentialTests).
struct ReferenceEngine: Sendable {
    let catalog: Catalog

    init(catalog: Catalog) { self.catalog = catalog }

    /// Evaluates every catalog entitlement.
    ///
    /// - Parameters:
    ///   - now: the caller's clock.
    ///   - floor: a lower bound the caller keeps, e.g. the daemon's last published `issuedAt`.
    /// - Returns: statuses at `effectiveNow = max(now, facts.newestSignedDate, floor)`, so a clock
    ///   wound back never extends access.
    func evaluate(_ facts: FactStore, now: Date, floor: Date? = nil) -> EngineResult {
        var effectiveNow = now
        if let signed = facts.newestSignedDate, signed > effectiveNow { effectiveNow = signed }
        if let floor, floor > effectiveNow { effectiveNow = floor }

        var candidates: [String: [Candidate]] = [:]
        for transaction in latestPerOriginal(facts) {
            guard let entitlementIds = catalog.entitlementsByProduct[transaction.productId], !entitlementIds.isEmpty,
                  let candidate = candidate(for: transaction, facts: facts, at: effectiveNow)
            else { continue }
            for id in entitlementIds { candidates[id, default: []].append(candidate) }
        }

        var statuses: [String: EntitlementStatus] = [:]
        var nextTransition: Date?
        for id in catalog.entitlements.keys {
            let status = Self.decide(candidates[id] ?? [])
            statuses[id] = status
            if status.active, let end = status.expiresAt, end > effectiveNow, nextTransition.map({ end < $0 }) ?? true {
                nextTransition = end
            }
        }
        return EngineResult(
            entitlements: statuses, nextTransition: nextTransition, effectiveNow: effectiveNow,
            introductoryOfferEligibility: introductoryOfferEligibility(facts), unmappedProducts: unmappedProducts(facts))
    }

    /// Added with `unmappedProducts`: the products of the held transactions that no entitlement
    /// lists, less the catalog's consumables, sorted.
    func unmappedProducts(_ facts: FactStore) -> [String] {
        var unmapped: Set<String> = []
        for transaction in facts.transactionsByID().values where catalog.entitlementsByProduct[transaction.productId] == nil {
            if case .consumable? = catalog.products[transaction.productId]?.kind { continue }
            unmapped.insert(transaction.productId)
        }
        return unmapped.sorted()
    }

    /// Subscription group id -> whether the user may still redeem that group's introductory offer
    /// (one per group), under ``Catalog/introductoryOfferPolicy``. Revoked and upgraded
    /// transactions count as history too.
    func introductoryOfferEligibility(_ facts: FactStore) -> [String: Bool] {
        var eligibility: [String: Bool] = [:]
        for product in catalog.products.values {
            if case .autoRenewable(let group, _) = product.kind { eligibility[group] = true }
        }
        for transaction in facts.transactionsByID().values {
            guard let product = catalog.products[transaction.productId], case .autoRenewable(let group, _) = product.kind else { continue }
            switch catalog.introductoryOfferPolicy {
            case .newSubscribersOnly: eligibility[group] = false
            case .oncePerGroup where transaction.offerType == .introductory: eligibility[group] = false
            case .oncePerGroup: break
            }
        }
        return eligibility
    }

    // MARK: Steps

    private func latestPerOriginal(_ facts: FactStore) -> [StoreTransaction] {
        var latest: [String: StoreTransaction] = [:]
        for transaction in facts.transactionsByID().values {
            if let current = latest[transaction.originalTransactionId], !Self.isLater(transaction, than: current) { continue }
            latest[transaction.originalTransactionId] = transaction
        }
        return Array(latest.values)
    }

    private static func isLater(_ a: StoreTransaction, than b: StoreTransaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        let aSigned = a.signedDate ?? .distantPast, bSigned = b.signedDate ?? .distantPast
        if aSigned != bSigned { return aSigned > bSigned }
        return a.transactionId > b.transactionId
    }

    /// One transaction's claim on its entitlements at `now`, or `nil` when it grants nothing.
    private func candidate(for transaction: StoreTransaction, facts: FactStore, at now: Date) -> Candidate? {
        if transaction.isUpgraded { return nil }
        let kind = catalog.products[transaction.productId]?.kind ?? Self.kind(of: transaction.type)
        guard let kind, kind != .consumable else { return nil }
        let ownership: Ownership = transaction.inAppOwnershipType == .familyShared ? .familyShared : .purchased
        var group: String?, level: Int?
        if case .autoRenewable(let g, let l) = kind { (group, level) = (g, l) }

        func make(_ state: EntitlementState, active: Bool, periodType: PeriodType = .normal, expiresAt: Date? = nil,
                  willRenew: Bool = false, ended: Date? = nil) -> Candidate {
            Candidate(
                status: EntitlementStatus(
                    active: active, state: state, periodType: periodType, expiresAt: active ? expiresAt : nil,
                    productId: transaction.productId, willRenew: willRenew, ownership: ownership),
                group: group, level: level, ended: ended ?? transaction.purchaseDate, transactionId: transaction.transactionId)
        }

        let periodType = Self.periodType(of: transaction, kind: kind, catalogOffer: catalog.products[transaction.productId]?.introductoryOffer)
        if let revoked = transaction.revocationDate {
            // Added with `revocation`: a family revoke or a refund.
            var candidate = make(.revoked, active: false, periodType: periodType, ended: revoked)
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
            guard let expires = transaction.expiresDate else { return make(.expired, active: false, periodType: periodType) }
            let renewal = facts.renewalInfosByOriginalID()[transaction.originalTransactionId]
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

    /// An introductory offer without a discount type takes the catalog's `paymentMode`.
    private static func periodType(of transaction: StoreTransaction, kind: ProductKind, catalogOffer: IntroductoryOffer?) -> PeriodType {
        guard case .autoRenewable = kind, let offer = transaction.offerType else { return .normal }
        // Added with the offer period types: offerType 2, 3 and 4; an unknown one stays `intro`.
        switch offer {
        case .introductory: break
        case .promotional: return .promotional
        case .offerCode: return .offerCode
        case .winBack: return .winBack
        default: return .intro
        }
        switch transaction.offerDiscountType {
        case .freeTrial?: return .trial
        case _?: return .intro
        case nil: return catalogOffer.map { $0.paymentMode == "free" } ?? true ? .trial : .intro
        }
    }

    // MARK: Choosing

    private struct Candidate {
        var status: EntitlementStatus
        var group: String?
        var level: Int?
        /// When access ended (revocation, expiry); the purchase date for active candidates.
        var ended: Date
        var transactionId: String
    }

    private static func decide(_ candidates: [Candidate]) -> EntitlementStatus {
        let active = candidates.filter(\.status.active)
        if !active.isEmpty {
            // Best per subscription group first (levels compare only within a group), then overall.
            var bestPerBucket: [String: Candidate] = [:]
            for candidate in active {
                let bucket = candidate.group.map { "group:" + $0 } ?? "transaction:" + candidate.transactionId
                if let current = bestPerBucket[bucket], !isBetter(candidate, than: current, compareLevels: true) { continue }
                bestPerBucket[bucket] = candidate
            }
            var best: Candidate?
            for candidate in bestPerBucket.values where best.map({ isBetter(candidate, than: $0, compareLevels: false) }) ?? true {
                best = candidate
            }
            if var status = best?.status {
                // Added with `products`: every active candidate's product, the deciding one first, the others by id.
                let others = Set(active.compactMap(\.status.productId)).subtracting([status.productId].compactMap { $0 })
                status.products = [status.productId].compactMap { $0 } + others.sorted()
                return status
            }
        }
        var latest: Candidate?
        for candidate in candidates where latest.map({ endedLater(candidate, than: $0) }) ?? true { latest = candidate }
        return latest?.status ?? .notPurchased
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
