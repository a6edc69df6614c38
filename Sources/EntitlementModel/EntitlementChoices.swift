#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one evaluation needs to know about the catalog, resolved once per evaluation so that the
/// loop over subscriptions works with positions instead of String keys.
struct EvaluationPlan {
    /// A product's kind without Strings (the group is a position).
    enum Kind {
        case autoRenewable
        case nonConsumable
        case consumable
        case nonRenewing(duration: ISO8601Duration?)
    }

    /// One product id the facts name.
    struct Product {
        /// `entitlementPositions[entitlementStart..<entitlementStart + entitlementCount]` are the
        /// positions in ``EvaluationPlan/entitlementIds`` of the entitlements it grants.
        var entitlementStart: Int
        var entitlementCount: Int
        /// The catalog's kind, `nil` when the catalog does not list the product.
        var kind: Kind?
        /// Position of its subscription group (auto-renewable only), else -1.
        var group: Int
        var level: Int?
        /// Whether the catalog's introductory offer for this product is a free trial (`paymentMode`
        /// `free`); `nil` when the catalog names no introductory offer for it.
        var introductoryOfferIsFreeTrial: Bool?
    }

    /// Every catalog entitlement, in the order of `catalog.entitlements.keys`.
    let entitlementIds: [String]
    /// Parallel to the store's product ids.
    let products: [Product]
    let entitlementPositions: [Int]
    let groupCount: Int

    init(catalog: Catalog, productIds: [String]) {
        entitlementIds = Array(catalog.entitlements.keys)
        var positionById: [String: Int] = [:]
        for (position, id) in entitlementIds.enumerated() { positionById[id] = position }
        var groupPositions: [String: Int] = [:]
        var products: [Product] = []
        products.reserveCapacity(productIds.count)
        var entitlementPositions: [Int] = []
        for productId in productIds {
            let start = entitlementPositions.count
            entitlementPositions += (catalog.entitlementsByProduct[productId] ?? []).compactMap { positionById[$0] }
            var kind: Kind?, group = -1, level: Int?
            switch catalog.products[productId]?.kind {
            case .autoRenewable(let groupId, let groupLevel)?:
                kind = .autoRenewable
                if let known = groupPositions[groupId] {
                    group = known
                } else {
                    group = groupPositions.count
                    groupPositions[groupId] = group
                }
                level = groupLevel
            case .nonConsumable?: kind = .nonConsumable
            case .consumable?: kind = .consumable
            case .nonRenewing(let duration)?: kind = .nonRenewing(duration: duration)
            case nil: kind = nil
            }
            products.append(
                Product(
                    entitlementStart: start, entitlementCount: entitlementPositions.count - start, kind: kind, group: group, level: level,
                    introductoryOfferIsFreeTrial: catalog.products[productId]?.introductoryOffer?.isFreeTrial))
        }
        self.products = products
        self.entitlementPositions = entitlementPositions
        groupCount = groupPositions.count
    }
}

/// One transaction's claim on its entitlements at the evaluated instant: a status without its
/// strings (the product id and transaction id are read from the store by `position` when needed).
struct Claim {
    var active: Bool
    var state: EntitlementState
    var periodType: PeriodType
    var expiresAt: Date?
    var willRenew: Bool
    var ownership: Ownership
    /// Subscription group position, -1 outside a group.
    var group: Int
    var level: Int?
    /// When access ended (revocation, expiry); the purchase date for active claims.
    var ended: Date
    /// Position of the transaction in the store.
    var position: Int
    /// Why a revoked claim was revoked.
    var revocation: Revocation? = nil
    /// Active within the catalog's renewal leeway.
    var renewalPending = false
}

/// Rule 4 of ``EntitlementEngine``, streamed: per entitlement the best active claim of each
/// subscription group (levels compare only within a group), the best active claim outside any
/// group, and the inactive claim that ended last. Every comparison is a strict total order on
/// distinct transactions, so the outcome does not depend on the order claims arrive in.
struct EntitlementChoices {
    private let groups: Int
    private var bestOutsideGroups: [Claim?]
    /// `entitlement * groups + group`.
    private var bestInGroup: [Claim?]
    private var latestInactive: [Claim?]
    /// Per entitlement, the distinct products (positions in the store) of every active claim.
    private var activeProducts: [[Int32]]

    init(entitlements: Int, groups: Int) {
        self.groups = groups
        activeProducts = Array(repeating: [], count: entitlements)
        bestOutsideGroups = Array(repeating: nil, count: entitlements)
        bestInGroup = Array(repeating: nil, count: entitlements * groups)
        latestInactive = Array(repeating: nil, count: entitlements)
    }

    mutating func offer(_ claim: Claim, to entitlement: Int, facts transactions: FactStore) {
        if claim.active {
            let product = transactions.storedTransactions[claim.position].product
            if !activeProducts[entitlement].contains(product) { activeProducts[entitlement].append(product) }
            if claim.group >= 0 {
                let slot = entitlement * groups + claim.group
                if let current = bestInGroup[slot], !Self.isBetter(claim, than: current, compareLevels: true, transactions) { return }
                bestInGroup[slot] = claim
            } else {
                if let current = bestOutsideGroups[entitlement], !Self.isBetter(claim, than: current, compareLevels: false, transactions) {
                    return
                }
                bestOutsideGroups[entitlement] = claim
            }
        } else {
            if let current = latestInactive[entitlement], !Self.endedLater(claim, than: current, transactions) { return }
            latestInactive[entitlement] = claim
        }
    }

    /// The status of `entitlement`: the best active claim, else the one that ended last, else not purchased.
    func status(of entitlement: Int, facts transactions: FactStore) -> EntitlementStatus {
        var best = bestOutsideGroups[entitlement]
        for group in 0..<groups {
            guard let candidate = bestInGroup[entitlement * groups + group] else { continue }
            if best.map({ Self.isBetter(candidate, than: $0, compareLevels: false, transactions) }) ?? true { best = candidate }
        }
        guard let chosen = best ?? latestInactive[entitlement] else { return .notPurchased }
        let deciding = transactions.storedTransactions[chosen.position].product
        var products: [String]?
        if chosen.active, activeProducts[entitlement].count > 1 {
            let others = activeProducts[entitlement].filter { $0 != deciding }.map { transactions.productIds[Int($0)] }.sorted()
            products = [transactions.productIds[Int(deciding)]] + others
        }
        return EntitlementStatus(
            active: chosen.active, state: chosen.state, periodType: chosen.periodType, expiresAt: chosen.expiresAt,
            productId: transactions.productIds[Int(deciding)], willRenew: chosen.willRenew,
            ownership: chosen.ownership, products: products, revocation: chosen.revocation, renewalPending: chosen.renewalPending)
    }

    private static func isBetter(
        _ a: Claim, than b: Claim, compareLevels: Bool, _ transactions: FactStore
    ) -> Bool {
        let aLifetime = a.expiresAt == nil, bLifetime = b.expiresAt == nil
        if aLifetime != bLifetime { return aLifetime }
        let aGrace = a.state == .inGracePeriod, bGrace = b.state == .inGracePeriod
        if aGrace != bGrace { return !aGrace }
        if compareLevels, let aLevel = a.level, let bLevel = b.level, aLevel != bLevel { return aLevel < bLevel }
        let aEnd = a.expiresAt ?? .distantFuture, bEnd = b.expiresAt ?? .distantFuture
        if aEnd != bEnd { return aEnd > bEnd }
        if a.ownership != b.ownership { return a.ownership == .purchased }
        return transactions.transactionId(at: a.position) > transactions.transactionId(at: b.position)
    }

    private static func endedLater(_ a: Claim, than b: Claim, _ transactions: FactStore) -> Bool {
        if a.ended != b.ended { return a.ended > b.ended }
        let rank: (EntitlementState) -> Int = { state in
            switch state {
            case .inBillingRetryPeriod: 3
            case .revoked: 2
            case .expired: 1
            default: 0
            }
        }
        if rank(a.state) != rank(b.state) { return rank(a.state) > rank(b.state) }
        return transactions.transactionId(at: a.position) > transactions.transactionId(at: b.position)
    }
}
