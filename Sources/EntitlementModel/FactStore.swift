#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The facts the engine evaluates: the current version of every transaction and of every
/// subscription's renewal info. A pure value; the daemon journals the raw input lines and rebuilds
/// a store by inserting them again.
///
/// Versions: for one `transactionId` (or, for renewal info, one `originalTransactionId`) the
/// version with the newest `signedDate` wins. On a tie, or when the newcomer has no `signedDate`
/// and an existing version does, the existing version stays, so replaying the same input is a
/// no-op and the order of replay does not matter.
///
/// Indexed on insert, so that evaluation costs one step per subscription and never regroups or
/// copies transactions: per `originalTransactionId` the members and the latest transaction
/// (``EntitlementEngine`` rule 1: newest `purchaseDate`, then newest `signedDate`, then the
/// greater `transactionId`) and the renewal info; per product id how many current transactions
/// name it (and how many of them redeemed an introductory offer).
public struct FactStore: Sendable {
    /// One `originalTransactionId`: a subscription, or a single purchase.
    struct Subscription: Sendable {
        var originalTransactionId: String
        /// Positions in ``transactionStorage`` whose current version names this original.
        var members: [Int] = []
        /// The member that counts (rule 1), `nil` while only renewal info is known.
        var latest: Int?
        var renewalInfo: RenewalInfo?
        /// What the engine reads of ``renewalInfo``, without its Strings.
        var renewal: RenewalFacts?
        /// Set when a journal record about this subscription was lost: it grants nothing until
        /// a fact signed after this instant arrives (see ``FactStore/withhold(transactionIds:originalTransactionIds:everything:since:)``).
        var withheldSince: Date?
        /// The newest `signedDate` of any fact inserted for this subscription.
        var newestSignedDate: Date?

        /// Whether the engine must skip this subscription.
        var isWithheld: Bool {
            guard let withheldSince else { return false }
            return !(newestSignedDate.map { $0 > withheldSince } ?? false)
        }

        mutating func saw(_ signed: Date?) {
            if let signed, newestSignedDate.map({ signed > $0 }) ?? true { newestSignedDate = signed }
        }
    }

    /// The renewal-info fields the engine decides with.
    struct RenewalFacts: Sendable {
        var autoRenewStatus: Bool?
        var isInBillingRetryPeriod: Bool?
        var gracePeriodExpiresDate: Date?
    }

    /// How many current transaction versions name one product.
    struct ProductUse: Sendable {
        var transactions = 0
        var introductoryOffers = 0
    }

    /// Current version of each transaction, in first-seen order.
    private(set) var transactionStorage: [StoreTransaction] = []
    /// Position in ``productIds`` of each transaction's product, parallel to ``transactionStorage``.
    private(set) var transactionProducts: [Int] = []
    private var transactionPositions: [String: Int] = [:]
    private(set) var subscriptions: [Subscription] = []
    private var subscriptionPositions: [String: Int] = [:]
    /// Every product id any transaction version ever named, in first-seen order.
    private(set) var productIds: [String] = []
    private var productPositions: [String: Int] = [:]
    /// Parallel to ``productIds``.
    private(set) var productUses: [ProductUse] = []

    /// The newest `signedDate` of any fact held: a lower bound for "now" (the clock floor).
    public private(set) var newestSignedDate: Date?

    /// An empty store: evaluating it grants nothing.
    public init() {}

    /// A store holding `events`, inserted in order.
    public init(_ events: some Sequence<StoreEvent>) {
        for event in events { insert(event) }
    }

    /// Current version of each transaction, by `transactionId`. Builds a new dictionary on every
    /// call (O(n), hence a function): use ``transaction(id:)`` for one. A property with this cost
    /// once made every ingested event O(facts held).
    public func transactionsByID() -> [String: StoreTransaction] {
        Dictionary(uniqueKeysWithValues: transactionStorage.map { ($0.transactionId, $0) })
    }

    /// Current renewal info of each subscription, by `originalTransactionId`. Builds a new
    /// dictionary on every call (O(n)): use ``renewalInfo(original:)`` for one.
    public func renewalInfosByOriginalID() -> [String: RenewalInfo] {
        var infos: [String: RenewalInfo] = [:]
        for subscription in subscriptions {
            if let info = subscription.renewalInfo { infos[subscription.originalTransactionId] = info }
        }
        return infos
    }

    /// How many transactions (current versions) the store holds.
    public var transactionCount: Int { transactionStorage.count }

    /// The current version of transaction `id`, if known.
    public func transaction(id: String) -> StoreTransaction? {
        transactionPositions[id].map { transactionStorage[$0] }
    }

    /// The current renewal info of the subscription whose `originalTransactionId` is `original`.
    public func renewalInfo(original: String) -> RenewalInfo? {
        subscriptionPositions[original].flatMap { subscriptions[$0].renewalInfo }
    }

    /// Inserts one fact.
    /// - Returns: `true` when the store changed; `false` when the event was already known or is
    ///   older than the version held.
    @discardableResult
    public mutating func insert(_ event: StoreEvent) -> Bool {
        switch event {
        case .transaction(let transaction):
            guard insert(transaction) else { return false }
        case .renewalInfo(let info):
            let position = subscriptionPosition(for: info.originalTransactionId)
            if let existing = subscriptions[position].renewalInfo, !Self.isNewer(info.signedDate, than: existing.signedDate) {
                return false
            }
            subscriptions[position].renewalInfo = info
            subscriptions[position].saw(info.signedDate)
            subscriptions[position].renewal = RenewalFacts(
                autoRenewStatus: info.autoRenewStatus, isInBillingRetryPeriod: info.isInBillingRetryPeriod,
                gracePeriodExpiresDate: info.gracePeriodExpiresDate)
        }
        if let signed = event.signedDate, newestSignedDate.map({ signed > $0 }) ?? true { newestSignedDate = signed }
        return true
    }

    /// Inserts every event; returns whether any changed the store.
    @discardableResult
    public mutating func insert(contentsOf events: some Sequence<StoreEvent>) -> Bool {
        var changed = false
        for event in events where insert(event) { changed = true }
        return changed
    }

    /// Withholds access from every subscription named, directly or through one of its
    /// transactions, because a record about it was lost: such a subscription grants nothing
    /// until a fact about it signed after `since` arrives. With `everything`, every subscription
    /// held so far is withheld. Returns the original transaction ids withheld, sorted.
    @discardableResult
    package mutating func withhold(transactionIds: [String], originalTransactionIds: [String], everything: Bool, since: Date) -> [String] {
        var positions = Set<Int>()
        if everything { positions.formUnion(subscriptions.indices) }
        for id in transactionIds {
            if let position = transactionPositions[id], let original = subscriptionPositions[transactionStorage[position].originalTransactionId] {
                positions.insert(original)
            }
        }
        for original in originalTransactionIds { positions.insert(subscriptionPosition(for: original)) }
        for position in positions where subscriptions[position].withheldSince.map({ since > $0 }) ?? true {
            subscriptions[position].withheldSince = since
        }
        return positions.map { subscriptions[$0].originalTransactionId }.sorted()
    }

    /// Original transaction ids of the subscriptions withheld now, sorted.
    package var withheldOriginalTransactionIds: [String] {
        subscriptions.filter(\.isWithheld).map(\.originalTransactionId).sorted()
    }

    // MARK: Compaction

    /// Drops every transaction that can no longer change an evaluation: all but the latest
    /// (rule 1) of each `originalTransactionId`. What the engine reads stays exactly as it was
    /// (the latest of each subscription, renewal info, product history, ``newestSignedDate``,
    /// withholding), so ``EntitlementEngine/evaluate(_:now:floor:)`` gives the same result at
    /// every instant, and memory holds one transaction per subscription however long its history.
    ///
    /// Product history (`productUses`) keeps counting what was dropped: introductory-offer
    /// eligibility stays decided by every transaction ever held.
    ///
    /// What it assumes of later facts, as App Store data does: a new version of a transaction
    /// keeps its `purchaseDate` and `originalTransactionId`. A dropped transaction that arrives
    /// again counts as new (its rank is below the latest, so nothing evaluates differently); a
    /// version of the latest that moved its `purchaseDate` back would be compared with the
    /// latest alone, not with the dropped ones.
    package mutating func compact() {
        var storage: [StoreTransaction] = []
        var products: [Int] = []
        var positions: [String: Int] = [:]
        storage.reserveCapacity(subscriptions.count)
        products.reserveCapacity(subscriptions.count)
        positions.reserveCapacity(subscriptions.count)
        for index in subscriptions.indices {
            guard let latest = subscriptions[index].latest else {
                subscriptions[index].members = []
                continue
            }
            let position = storage.count
            storage.append(transactionStorage[latest])
            products.append(transactionProducts[latest])
            positions[transactionStorage[latest].transactionId] = position
            subscriptions[index].members = [position]
            subscriptions[index].latest = position
        }
        transactionStorage = storage
        transactionProducts = products
        transactionPositions = positions
    }

    /// What a compacted store holds beyond its facts: the clock floor, the product history and the
    /// withheld subscriptions. A checkpoint is the facts (``checkpointEvents``) followed by this.
    package struct Summary: Sendable, Hashable {
        package var newestSignedDate: Date?
        /// Per product id: how many transaction versions named it, and how many of them redeemed
        /// an introductory offer (counts of history, dropped transactions included).
        package var productUses: [ProductCount]
        /// Subscriptions withheld after a lost journal record, and since when.
        package var withheld: [Withholding]

        package struct ProductCount: Sendable, Hashable {
            package var productId: String
            package var transactions: Int
            package var introductoryOffers: Int
            package init(productId: String, transactions: Int, introductoryOffers: Int) {
                self.productId = productId
                self.transactions = transactions
                self.introductoryOffers = introductoryOffers
            }
        }

        package struct Withholding: Sendable, Hashable {
            package var originalTransactionId: String
            package var since: Date
            package init(originalTransactionId: String, since: Date) {
                self.originalTransactionId = originalTransactionId
                self.since = since
            }
        }

        package init(newestSignedDate: Date?, productUses: [ProductCount], withheld: [Withholding]) {
            self.newestSignedDate = newestSignedDate
            self.productUses = productUses
            self.withheld = withheld
        }
    }

    /// The facts a checkpoint holds: every transaction held and every renewal info, in order.
    package var checkpointEvents: [StoreEvent] {
        transactionStorage.map(StoreEvent.transaction) + subscriptions.compactMap { $0.renewalInfo.map(StoreEvent.renewalInfo) }
    }

    /// See ``Summary``.
    package var summary: Summary {
        Summary(
            newestSignedDate: newestSignedDate,
            productUses: productIds.indices.map {
                Summary.ProductCount(
                    productId: productIds[$0], transactions: productUses[$0].transactions, introductoryOffers: productUses[$0].introductoryOffers)
            },
            withheld: subscriptions.filter(\.isWithheld).compactMap { subscription in
                subscription.withheldSince.map { Summary.Withholding(originalTransactionId: subscription.originalTransactionId, since: $0) }
            })
    }

    /// Sets what `summary` says, after a checkpoint's events were inserted into an empty store:
    /// the checkpoint then evaluates exactly as the store it was taken from.
    package mutating func restore(_ summary: Summary) {
        if let signed = summary.newestSignedDate, newestSignedDate.map({ signed > $0 }) ?? true { newestSignedDate = signed }
        for use in summary.productUses {
            let position = productPosition(for: use.productId)
            productUses[position] = ProductUse(transactions: use.transactions, introductoryOffers: use.introductoryOffers)
        }
        for withholding in summary.withheld {
            let position = subscriptionPosition(for: withholding.originalTransactionId)
            if subscriptions[position].withheldSince.map({ withholding.since > $0 }) ?? true {
                subscriptions[position].withheldSince = withholding.since
            }
        }
    }

    // MARK: Index maintenance

    private mutating func insert(_ transaction: StoreTransaction) -> Bool {
        let product = productPosition(for: transaction.productId)
        let introductory = transaction.offerType == .introductory
        guard let position = transactionPositions[transaction.transactionId] else {
            let position = transactionStorage.count
            transactionStorage.append(transaction)
            transactionProducts.append(product)
            transactionPositions[transaction.transactionId] = position
            use(product, introductory: introductory, by: 1)
            let subscription = subscriptionPosition(for: transaction.originalTransactionId)
            subscriptions[subscription].members.append(position)
            subscriptions[subscription].saw(transaction.signedDate)
            consider(position, in: subscription)
            return true
        }
        let old = transactionStorage[position]
        guard Self.isNewer(transaction.signedDate, than: old.signedDate) else { return false }
        use(transactionProducts[position], introductory: old.offerType == .introductory, by: -1)
        use(product, introductory: introductory, by: 1)
        transactionStorage[position] = transaction
        transactionProducts[position] = product
        let subscription = subscriptionPosition(for: transaction.originalTransactionId)
        subscriptions[subscription].saw(transaction.signedDate)
        if old.originalTransactionId != transaction.originalTransactionId {
            if let previous = subscriptionPositions[old.originalTransactionId] {
                subscriptions[previous].members.removeAll { $0 == position }
                if subscriptions[previous].latest == position { recomputeLatest(of: previous) }
            }
            subscriptions[subscription].members.append(position)
            consider(position, in: subscription)
        } else if subscriptions[subscription].latest == position {
            recomputeLatest(of: subscription)  // its dates may have moved back
        } else {
            consider(position, in: subscription)
        }
        return true
    }

    private mutating func use(_ product: Int, introductory: Bool, by delta: Int) {
        productUses[product].transactions += delta
        if introductory { productUses[product].introductoryOffers += delta }
    }

    private mutating func productPosition(for productId: String) -> Int {
        if let position = productPositions[productId] { return position }
        productIds.append(productId)
        productUses.append(ProductUse())
        productPositions[productId] = productIds.count - 1
        return productIds.count - 1
    }

    private mutating func subscriptionPosition(for original: String) -> Int {
        if let position = subscriptionPositions[original] { return position }
        subscriptions.append(Subscription(originalTransactionId: original))
        subscriptionPositions[original] = subscriptions.count - 1
        return subscriptions.count - 1
    }

    private mutating func consider(_ position: Int, in subscription: Int) {
        if let latest = subscriptions[subscription].latest,
            !Self.isLater(transactionStorage[position], than: transactionStorage[latest])
        {
            return
        }
        subscriptions[subscription].latest = position
    }

    private mutating func recomputeLatest(of subscription: Int) {
        subscriptions[subscription].latest = nil
        for member in subscriptions[subscription].members { consider(member, in: subscription) }
    }

    /// Rule 1 of ``EntitlementEngine``: a strict total order on distinct transactions.
    static func isLater(_ a: StoreTransaction, than b: StoreTransaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        let aSigned = a.signedDate ?? .distantPast, bSigned = b.signedDate ?? .distantPast
        if aSigned != bSigned { return aSigned > bSigned }
        return a.transactionId > b.transactionId
    }

    /// Whether `candidate` replaces `held`, the version already kept for the same transaction
    /// (or the same subscription's renewal info): the rule ``insert(_:)`` applies, a strictly
    /// newer `signedDate`.
    public static func supersedes(_ candidate: StoreEvent, _ held: StoreEvent) -> Bool {
        isNewer(candidate.signedDate, than: held.signedDate)
    }

    private static func isNewer(_ candidate: Date?, than existing: Date?) -> Bool {
        guard let candidate else { return false }
        guard let existing else { return true }
        return candidate > existing
    }
}

extension FactStore: Hashable {
    /// Equal when they hold the same facts, whatever order they were inserted in.
    public static func == (lhs: FactStore, rhs: FactStore) -> Bool {
        lhs.newestSignedDate == rhs.newestSignedDate && lhs.transactionsByID() == rhs.transactionsByID() && lhs.renewalInfosByOriginalID() == rhs.renewalInfosByOriginalID()
            && lhs.withheldOriginalTransactionIds == rhs.withheldOriginalTransactionIds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(newestSignedDate)
        hasher.combine(transactionsByID())
        hasher.combine(renewalInfosByOriginalID())
    }
}
