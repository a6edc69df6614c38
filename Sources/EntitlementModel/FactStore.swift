#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The facts the engine evaluates: the current version of every transaction, of every
/// subscription's renewal info, of every app transaction and of every developer's grant. A pure
/// value; the daemon journals the raw input lines and rebuilds a store by inserting them again.
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
        /// The first of its transactions (linked through ``StoredTransaction/nextMember``), -1 for none.
        var firstMember: Int32 = -1
        /// The member that counts (rule 1), -1 while only renewal info is known.
        var latestMember: Int32 = -1
        /// Position in ``FactStore/renewalInfos`` of its renewal info, -1 for none.
        var renewalPosition: Int32 = -1
        /// Set when a journal record about this subscription was lost: it grants nothing until
        /// a fact signed after this instant arrives (see ``FactStore/withhold(transactionIds:originalTransactionIds:everything:since:)``).
        var withheldSince: Date?
        /// The newest `signedDate` of any fact inserted for this subscription.
        var newestSignedDate: Date?

        init(originalTransactionId: String) { self.originalTransactionId = originalTransactionId }

        /// The member that counts (rule 1), `nil` while only renewal info is known.
        var latest: Int? { latestMember < 0 ? nil : Int(latestMember) }

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
        /// Position in ``FactStore/origins`` of its environment (see ``StoredTransaction/origin``).
        var origin: UInt16
    }

    /// How many current transaction versions name one product.
    struct ProductUse: Sendable {
        var transactions = 0
        var introductoryOffers = 0
    }

    /// Current version of each transaction, in first-seen order: what the engine reads. The
    /// other fields are in ``coldBytes``; ``transaction(at:)`` puts a whole transaction together.
    private(set) var storedTransactions: [StoredTransaction] = []
    /// ``TransactionColdFields`` records; a replaced version's record stays until ``compact()``.
    var coldBytes: [UInt8] = []
    /// Whether a replaced version's cold fields are still in ``coldBytes``.
    private var hasReplacedVersions = false
    var strings = InternedStrings()
    /// Positions in ``storedTransactions`` by `transactionId` (read from the cold bytes).
    private var transactionIndex = IdentifierIndex()
    private(set) var subscriptions: [Subscription] = []
    /// Positions in ``subscriptions`` by `originalTransactionId`.
    private var subscriptionIndex = IdentifierIndex()
    /// Current renewal info of the subscriptions that have one, and what the engine reads of it.
    private(set) var renewalInfos: [RenewalInfo] = []
    private(set) var renewalFacts: [RenewalFacts] = []
    /// Every product id any transaction version ever named, in first-seen order.
    private var products = InternedStrings()
    var productIds: [String] { products.values }
    /// Parallel to ``productIds``.
    private(set) var productUses: [ProductUse] = []

    /// Every origin (bundle id, environment) the facts held name, in first-seen order: the engine
    /// asks the catalog about each once per evaluation (``Catalog/counts(_:)``), not per fact.
    private(set) var origins: [FactOrigin] = []
    private var originPositions: [FactOrigin: UInt16] = [:]
    /// The origin of a fact whose origin did not fit in ``origins`` (its 65,535 places taken):
    /// read from the fact itself when evaluated.
    static let unlistedOrigin = UInt16.max

    /// The current version of each app transaction, by `appTransactionId` (newest
    /// `receiptCreationDate` wins, as for transactions).
    public private(set) var appTransactions: [String: AppTransaction] = [:]
    /// The current version of each grant, by `grantId` (newest `signedDate` wins: a replayed
    /// older version changes nothing).
    public private(set) var grants: [String: EntitlementGrant] = [:]

    /// The newest `signedDate` of any App Store transaction or renewal info held: a lower bound
    /// for "now" (the clock floor). App transactions and grants do not move it: a developer's
    /// clock is not the App Store's.
    public private(set) var newestSignedDate: Date?

    /// An empty store: evaluating it grants nothing.
    public init() {}

    /// Makes room for about `transactions` transactions (and as many subscriptions), so that
    /// replaying a journal of that many facts does not grow its indexes step by step.
    package mutating func reserveCapacity(transactions: Int) {
        storedTransactions.reserveCapacity(transactions)
        transactionIndex.reserveCapacity(transactions)
        subscriptions.reserveCapacity(transactions)
        subscriptionIndex.reserveCapacity(transactions)
    }

    /// A store holding `events`, inserted in order.
    public init(_ events: some Sequence<StoreEvent>) {
        for event in events { insert(event) }
    }

    /// Current version of each transaction, by `transactionId`. Builds a new dictionary on every
    /// call (O(n), hence a function): use ``transaction(id:)`` for one. A property with this cost
    /// once made every ingested event O(facts held).
    public func transactionsByID() -> [String: StoreTransaction] {
        Dictionary(uniqueKeysWithValues: storedTransactions.indices.map { position in
            let transaction = transaction(at: position)
            return (transaction.transactionId, transaction)
        })
    }

    /// Current renewal info of each subscription, by `originalTransactionId`. Builds a new
    /// dictionary on every call (O(n)): use ``renewalInfo(original:)`` for one.
    public func renewalInfosByOriginalID() -> [String: RenewalInfo] {
        var infos: [String: RenewalInfo] = [:]
        for subscription in subscriptions where subscription.renewalPosition >= 0 {
            infos[subscription.originalTransactionId] = renewalInfos[Int(subscription.renewalPosition)]
        }
        return infos
    }

    /// How many transactions (current versions) the store holds.
    public var transactionCount: Int { storedTransactions.count }

    /// The current version of transaction `id`, if known.
    public func transaction(id: String) -> StoreTransaction? {
        transactionPosition(id: id).map { transaction(at: Int($0)) }
    }

    /// The current renewal info of the subscription whose `originalTransactionId` is `original`.
    public func renewalInfo(original: String) -> RenewalInfo? {
        existingSubscriptionPosition(for: original).flatMap { renewalInfo(ofSubscription: Int($0)) }
    }

    func renewalInfo(ofSubscription position: Int) -> RenewalInfo? {
        let renewal = subscriptions[position].renewalPosition
        return renewal < 0 ? nil : renewalInfos[Int(renewal)]
    }

    /// What the engine reads of a subscription's renewal info.
    func renewal(ofSubscription position: Int) -> RenewalFacts? {
        let renewal = subscriptions[position].renewalPosition
        return renewal < 0 ? nil : renewalFacts[Int(renewal)]
    }

    /// The whole transaction at `position` in ``storedTransactions``.
    func transaction(at position: Int) -> StoreTransaction {
        let stored = storedTransactions[position]
        var transaction = StoreTransaction(
            transactionId: "", originalTransactionId: subscriptions[Int(stored.subscription)].originalTransactionId,
            productId: productIds[Int(stored.product)], purchaseDate: stored.purchaseDate, expiresDate: stored.expiresDate,
            type: .autoRenewable, signedDate: stored.signedDate, revocationDate: stored.revocationDate,
            isUpgraded: stored.flags.contains(.upgraded))
        coldBytes.withUnsafeBufferPointer { TransactionColdFields.read($0, at: stored.cold, into: &transaction, strings: strings) }
        return transaction
    }

    /// The `transactionId` of the transaction at `position` in ``storedTransactions``.
    func transactionId(at position: Int) -> String {
        coldBytes.withUnsafeBufferPointer { TransactionColdFields.transactionId($0, at: storedTransactions[position].cold) }
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
            if let existing = renewalInfo(ofSubscription: position), !Self.isNewer(info.signedDate, than: existing.signedDate) {
                return false
            }
            let facts = RenewalFacts(
                autoRenewStatus: info.autoRenewStatus, isInBillingRetryPeriod: info.isInBillingRetryPeriod,
                gracePeriodExpiresDate: info.gracePeriodExpiresDate,
                origin: originPosition(FactOrigin(bundleId: nil, environment: info.environment)))
            let renewal = subscriptions[position].renewalPosition
            if renewal < 0 {
                subscriptions[position].renewalPosition = Int32(renewalInfos.count)
                renewalInfos.append(info)
                renewalFacts.append(facts)
            } else {
                renewalInfos[Int(renewal)] = info
                renewalFacts[Int(renewal)] = facts
            }
            subscriptions[position].saw(info.signedDate)
        case .appTransaction(let app):
            if let held = appTransactions[app.appTransactionId], !Self.supersedes(event, .appTransaction(held)) { return false }
            appTransactions[app.appTransactionId] = app
            return true
        case .grant(let grant):
            if let held = grants[grant.grantId], !Self.supersedes(event, .grant(held)) { return false }
            grants[grant.grantId] = grant
            return true
        }
        saw(event.signedDate)
        return true
    }

    /// Raises the clock floor (``newestSignedDate``) to `signed` if it is later.
    mutating func saw(_ signed: Date?) {
        if let signed, newestSignedDate.map({ signed > $0 }) ?? true { newestSignedDate = signed }
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
            if let position = transactionPosition(id: id) { positions.insert(Int(storedTransactions[Int(position)].subscription)) }
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
        // Already compact (one transaction per subscription, no replaced version's cold fields):
        // nothing to drop, and rebuilding the indexes would only cost time.
        if !hasReplacedVersions, storedTransactions.count == subscriptions.count(where: { $0.latestMember >= 0 }) { return }
        hasReplacedVersions = false
        var stored: [StoredTransaction] = []
        var cold: [UInt8] = []
        var keptIndex = IdentifierIndex()
        stored.reserveCapacity(subscriptions.count)
        keptIndex.reserveCapacity(subscriptions.count)
        for index in subscriptions.indices {
            guard let latest = subscriptions[index].latest else {
                subscriptions[index].firstMember = -1
                continue
            }
            let position = Int32(stored.count)
            var kept = storedTransactions[latest]
            kept.nextMember = -1
            kept.cold = cold.count
            coldBytes.withUnsafeBufferPointer { bytes in
                let start = storedTransactions[latest].cold
                cold.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<TransactionColdFields.end(bytes, at: start)]))
                keptIndex.insert(position, hash: IdentifierIndex.hash(TransactionColdFields.transactionIdBytes(bytes, at: start)))
            }
            stored.append(kept)
            subscriptions[index].firstMember = position
            subscriptions[index].latestMember = position
        }
        storedTransactions = stored
        coldBytes = cold
        transactionIndex = keptIndex
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

    /// The current version of app transaction `id`, if known.
    public func appTransaction(id: String) -> AppTransaction? { appTransactions[id] }

    /// The current version of grant `id`, if known.
    public func grant(id: String) -> EntitlementGrant? { grants[id] }

    /// The facts a checkpoint holds: every transaction held and every renewal info, in order,
    /// then the app transactions and the grants, each by id.
    package var checkpointEvents: [StoreEvent] {
        storedTransactions.indices.map { .transaction(transaction(at: $0)) }
            + subscriptions.indices.compactMap { renewalInfo(ofSubscription: $0).map(StoreEvent.renewalInfo) }
            + appTransactions.keys.sorted().compactMap { appTransactions[$0].map(StoreEvent.appTransaction) }
            + grants.keys.sorted().compactMap { grants[$0].map(StoreEvent.grant) }
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

    // MARK: Origins

    /// The position of `origin` in ``origins``, added if new (``unlistedOrigin`` once full).
    mutating func originPosition(_ origin: FactOrigin) -> UInt16 {
        if let last = origins.last, last == origin { return UInt16(origins.count - 1) }
        if let known = originPositions[origin] { return known }
        guard origins.count < Int(Self.unlistedOrigin) else { return Self.unlistedOrigin }
        let position = UInt16(origins.count)
        origins.append(origin)
        originPositions[origin] = position
        return position
    }

    /// Whether the transaction at `position` counts, given `verdicts` (``Catalog/counts(_:)`` of
    /// each of ``origins``, in order) and the catalog that gave them.
    func counts(transactionAt position: Int, _ verdicts: [Bool], catalog: Catalog) -> Bool {
        let origin = storedTransactions[position].origin
        if origin != Self.unlistedOrigin { return verdicts[Int(origin)] }
        let transaction = transaction(at: position)
        return catalog.counts(FactOrigin(bundleId: transaction.bundleId, environment: transaction.environment))
    }

    /// What the engine reads of a subscription's renewal info, when its origin counts under
    /// `catalog` (`verdicts` as in ``counts(transactionAt:_:catalog:)``); `nil` otherwise.
    func renewal(ofSubscription position: Int, _ verdicts: [Bool], catalog: Catalog) -> RenewalFacts? {
        guard let renewal = renewal(ofSubscription: position) else { return nil }
        let counts = renewal.origin != Self.unlistedOrigin
            ? verdicts[Int(renewal.origin)]
            : catalog.counts(FactOrigin(bundleId: nil, environment: renewalInfo(ofSubscription: position)?.environment))
        return counts ? renewal : nil
    }

    // MARK: Index maintenance

    private mutating func insert(_ transaction: StoreTransaction) -> Bool {
        let product = productPosition(for: transaction.productId)
        let cold = coldBytes.count
        TransactionColdFields.append(transaction, to: &coldBytes, strings: &strings)
        let candidate = StoredTransaction(
            purchaseDate: transaction.purchaseDate, expiresDate: transaction.expiresDate, signedDate: transaction.signedDate,
            revocationDate: transaction.revocationDate, cold: cold, product: Int32(product), subscription: -1,
            flags: StoredTransaction.Flags(transaction),
            origin: originPosition(FactOrigin(bundleId: transaction.bundleId, environment: transaction.environment)))
        return insert(candidate, original: transaction.originalTransactionId)
    }

    /// Inserts `candidate`, whose cold fields (its `transactionId` first) were just appended at
    /// `candidate.cold` (the end of ``coldBytes``): the one rule for a transaction however it was
    /// read. When it is not newer than the version held, its cold fields are removed again and
    /// nothing changes.
    mutating func insert(_ candidate: StoredTransaction, original: String) -> Bool {
        let product = Int(candidate.product)
        let introductory = candidate.flags.contains(.introductoryOffer)
        let (hash, found) = coldBytes.withUnsafeBufferPointer { cold in
            let id = TransactionColdFields.transactionIdBytes(cold, at: candidate.cold)
            let hash = IdentifierIndex.hash(id)
            return (hash, transactionPosition(idBytes: id, hash: hash, cold: cold))
        }
        guard let held = found.map(Int.init) else {
            let position = storedTransactions.count
            let subscription = subscriptionPosition(for: original)
            var stored = candidate
            stored.subscription = Int32(subscription)
            storedTransactions.append(stored)
            transactionIndex.insert(Int32(position), hash: hash)
            use(product, introductory: introductory, by: 1)
            link(position, into: subscription)
            subscriptions[subscription].saw(candidate.signedDate)
            consider(position, in: subscription)
            return true
        }
        let position = held
        let old = storedTransactions[position]
        guard Self.isNewer(candidate.signedDate, than: old.signedDate) else {
            coldBytes.removeSubrange(candidate.cold...)
            return false
        }
        use(Int(old.product), introductory: old.flags.contains(.introductoryOffer), by: -1)
        use(product, introductory: introductory, by: 1)
        hasReplacedVersions = true
        let subscription = subscriptionPosition(for: original)
        let previous = Int(old.subscription)
        if previous != subscription { unlink(position, from: previous) }
        var replacement = candidate
        replacement.subscription = Int32(subscription)
        replacement.nextMember = storedTransactions[position].nextMember
        storedTransactions[position] = replacement
        subscriptions[subscription].saw(candidate.signedDate)
        if previous != subscription {
            if subscriptions[previous].latestMember == Int32(position) { recomputeLatest(of: previous) }
            link(position, into: subscription)
            consider(position, in: subscription)
        } else if subscriptions[subscription].latestMember == Int32(position) {
            recomputeLatest(of: subscription)  // its dates may have moved back
        } else {
            consider(position, in: subscription)
        }
        return true
    }

    private mutating func link(_ position: Int, into subscription: Int) {
        storedTransactions[position].nextMember = subscriptions[subscription].firstMember
        subscriptions[subscription].firstMember = Int32(position)
    }

    private mutating func unlink(_ position: Int, from subscription: Int) {
        let target = Int32(position)
        if subscriptions[subscription].firstMember == target {
            subscriptions[subscription].firstMember = storedTransactions[position].nextMember
        } else {
            var member = subscriptions[subscription].firstMember
            while member >= 0 {
                let next = storedTransactions[Int(member)].nextMember
                if next == target {
                    storedTransactions[Int(member)].nextMember = storedTransactions[position].nextMember
                    break
                }
                member = next
            }
        }
        storedTransactions[position].nextMember = -1
    }

    private mutating func use(_ product: Int, introductory: Bool, by delta: Int) {
        productUses[product].transactions += delta
        if introductory { productUses[product].introductoryOffers += delta }
    }

    mutating func productPosition(for productId: String) -> Int {
        let position = products.position(of: productId)
        if position == productUses.count { productUses.append(ProductUse()) }
        return position
    }

    private mutating func subscriptionPosition(for original: String) -> Int {
        let hash = Self.identifierHash(original)
        if let position = existingSubscriptionPosition(for: original, hash: hash) { return Int(position) }
        subscriptions.append(Subscription(originalTransactionId: original))
        subscriptionIndex.insert(Int32(subscriptions.count - 1), hash: hash)
        return subscriptions.count - 1
    }

    private func existingSubscriptionPosition(for original: String, hash: UInt32? = nil) -> Int32? {
        subscriptionIndex.position(hash: hash ?? Self.identifierHash(original)) { subscriptions[Int($0)].originalTransactionId == original }
    }

    /// The position of transaction `id` in ``storedTransactions``.
    private func transactionPosition(id: String) -> Int32? {
        var id = id
        return id.withUTF8 { utf8 in
            coldBytes.withUnsafeBufferPointer { transactionPosition(idBytes: utf8, hash: IdentifierIndex.hash(utf8), cold: $0) }
        }
    }

    private func transactionPosition(idBytes: UnsafeBufferPointer<UInt8>, hash: UInt32, cold: UnsafeBufferPointer<UInt8>) -> Int32? {
        transactionIndex.position(hash: hash) { position in
            IdentifierIndex.equal(TransactionColdFields.transactionIdBytes(cold, at: storedTransactions[Int(position)].cold), idBytes)
        }
    }

    private static func identifierHash(_ id: String) -> UInt32 {
        var id = id
        return id.withUTF8 { IdentifierIndex.hash($0) }
    }

    private mutating func consider(_ position: Int, in subscription: Int) {
        if let latest = subscriptions[subscription].latest, !isLater(position, than: latest) { return }
        subscriptions[subscription].latestMember = Int32(position)
    }

    private mutating func recomputeLatest(of subscription: Int) {
        subscriptions[subscription].latestMember = -1
        var member = subscriptions[subscription].firstMember
        while member >= 0 {
            consider(Int(member), in: subscription)
            member = storedTransactions[Int(member)].nextMember
        }
    }

    /// Rule 1 of ``EntitlementEngine`` on two held transactions.
    private func isLater(_ a: Int, than b: Int) -> Bool {
        let first = storedTransactions[a], second = storedTransactions[b]
        if first.purchaseDate != second.purchaseDate { return first.purchaseDate > second.purchaseDate }
        let aSigned = first.signedDate ?? .distantPast, bSigned = second.signedDate ?? .distantPast
        if aSigned != bSigned { return aSigned > bSigned }
        return transactionId(at: a) > transactionId(at: b)
    }

    /// Whether `candidate` replaces `held`, the version already kept for the same transaction
    /// (or the same subscription's renewal info): the rule ``insert(_:)`` applies, a strictly
    /// newer `signedDate`.
    /// A signed app transaction or grant also replaces an unsigned version signed at the same
    /// instant, so that a catalog requiring signatures later finds the signed one.
    public static func supersedes(_ candidate: StoreEvent, _ held: StoreEvent) -> Bool {
        if isNewer(candidate.signedDate, than: held.signedDate) { return true }
        guard candidate.signedDate == held.signedDate else { return false }
        switch (candidate, held) {
        case (.appTransaction(let new), .appTransaction(let old)): return new.isSigned && !old.isSigned
        case (.grant(let new), .grant(let old)): return new.keyId != nil && old.keyId == nil
        default: return false
        }
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
            && lhs.appTransactions == rhs.appTransactions && lhs.grants == rhs.grants
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(newestSignedDate)
        hasher.combine(transactionsByID())
        hasher.combine(renewalInfosByOriginalID())
        hasher.combine(appTransactions)
        hasher.combine(grants)
    }
}
