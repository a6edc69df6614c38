#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

/// The facts the engine evaluates: the current version of every transaction, of every
/// subscription's renewal info, of every app transaction and of every developer's grant. A pure
/// value; the daemon journals the raw input lines and rebuilds a store by inserting them again.
///
/// Versions: for one `transactionId` (or, for renewal info, one `originalTransactionId`) the
/// version with the newest `signedDate` wins. On a tie, or when the newcomer has no `signedDate`
/// and an existing version does, the existing version stays, so replaying the same input is a
/// no-op and the order of replay does not matter.
///
/// Kept per `originalTransactionId` as facts arrive: the latest transaction (``EntitlementEngine``
/// rule 1: newest `purchaseDate`, then newest `signedDate`, then the greater `transactionId`) and
/// the renewal info, so that an evaluation costs one step per subscription; per product id, how
/// many current transactions name it (and how many of them redeemed an introductory offer).
public struct FactStore: Sendable {
    /// A subscription withheld because a journal record about it was lost: it grants nothing
    /// until a fact signed after ``since`` arrives (see ``FactStore/withhold(transactionIds:originalTransactionIds:everything:since:)``).
    struct Withholding: Sendable, Hashable {
        var since: Date
        /// The newest `signedDate` of any fact held about the subscription.
        var newestSignedDate: Date? = nil

        var isWithheld: Bool { !(newestSignedDate.map { $0 > since } ?? false) }

        mutating func saw(_ signed: Date?) {
            if let signed, newestSignedDate.map({ signed > $0 }) ?? true { newestSignedDate = signed }
        }
    }

    /// Where the transactions an id names sit in ``transactions``: the one whose `transactionId`
    /// it is, and the latest (rule 1) of the subscription whose `originalTransactionId` it is.
    /// One table for both, since a subscription's original id is its first transaction's id;
    /// 32-bit positions (-1 for none) keep an entry as small as its key.
    struct Place {
        private var transactionPosition: Int32 = -1, latestPosition: Int32 = -1

        var transaction: Int? {
            get { transactionPosition < 0 ? nil : Int(transactionPosition) }
            set { transactionPosition = newValue.map { Int32($0) } ?? -1 }
        }
        var latest: Int? {
            get { latestPosition < 0 ? nil : Int(latestPosition) }
            set { latestPosition = newValue.map { Int32($0) } ?? -1 }
        }
    }

    /// How many current transaction versions name one product.
    package struct ProductUse: Sendable, Hashable {
        package var transactions = 0
        package var introductoryOffers = 0
        package init(transactions: Int = 0, introductoryOffers: Int = 0) {
            self.transactions = transactions
            self.introductoryOffers = introductoryOffers
        }
    }

    /// Current version of each transaction, in first-seen order: an array, not a dictionary by
    /// id, because a dictionary's free slots are each as large as a transaction.
    private(set) var transactions: [StoreTransaction] = []
    /// Where the transactions each id names sit in ``transactions`` (see ``Place``).
    private var places: [String: Place] = [:]
    /// The subscriptions withheld, by `originalTransactionId`; empty but after a lost record.
    private var withheld: [String: Withholding] = [:]
    /// Current renewal info of each subscription that has one, by `originalTransactionId`.
    private(set) var renewalInfos: [String: RenewalInfo] = [:]
    /// By product id: every product any transaction version ever named.
    private(set) var productUses: [String: ProductUse] = [:]

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
    /// replaying a journal of that many facts does not grow its tables step by step.
    package mutating func reserveCapacity(transactions count: Int) {
        transactions.reserveCapacity(count)
        places.reserveCapacity(count)
    }

    /// A store holding `events`, inserted in order.
    public init(_ events: some Sequence<StoreEvent>) {
        for event in events { insert(event) }
    }

    /// Current version of each transaction, by `transactionId`.
    public func transactionsByID() -> [String: StoreTransaction] {
        Dictionary(uniqueKeysWithValues: transactions.map { ($0.transactionId, $0) })
    }

    /// How many transactions (current versions) the store holds.
    public var transactionCount: Int { transactions.count }

    /// The current version of transaction `id`, if known.
    public func transaction(id: String) -> StoreTransaction? { places[id]?.transaction.map { transactions[$0] } }

    /// Each subscription's latest transaction (rule 1), but those withheld: marked reading the
    /// id table in its order, then read in the order they are held, so memory is read in order.
    func forEachLatest(_ body: (StoreTransaction) -> Void) {
        var isLatest = [Bool](repeating: false, count: transactions.count)
        for case let position? in places.values.lazy.map(\.latest) { isLatest[position] = true }
        for position in transactions.indices where isLatest[position] && !isWithheld(transactions[position].originalTransactionId) {
            body(transactions[position])
        }
    }

    /// The current renewal info of the subscription whose `originalTransactionId` is `original`.
    public func renewalInfo(original: String) -> RenewalInfo? { renewalInfos[original] }

    /// Inserts one fact.
    /// - Returns: `true` when the store changed; `false` when the event was already known or is
    ///   older than the version held.
    @discardableResult
    public mutating func insert(_ event: consuming StoreEvent) -> Bool {
        let signedDate = event.signedDate
        switch consume event {
        case .transaction(let transaction):
            guard insert(transaction) else { return false }
        case .renewalInfo(let info):
            if let existing = renewalInfos[info.originalTransactionId], !Self.isNewer(info.signedDate, than: existing.signedDate) {
                return false
            }
            renewalInfos[info.originalTransactionId] = info
            if !withheld.isEmpty { withheld[info.originalTransactionId]?.saw(info.signedDate) }
        case .appTransaction(let app):
            if let held = appTransactions[app.appTransactionId], !Self.supersedes(.appTransaction(app), .appTransaction(held)) { return false }
            appTransactions[app.appTransactionId] = app
            return true
        case .grant(let grant):
            if let held = grants[grant.grantId], !Self.supersedes(.grant(grant), .grant(held)) { return false }
            grants[grant.grantId] = grant
            return true
        }
        saw(signedDate)
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
        var originals = Set(originalTransactionIds)
        if everything {
            originals.formUnion(places.filter { $0.value.latest != nil }.keys)
            originals.formUnion(renewalInfos.keys)
        }
        for id in transactionIds {
            if let transaction = self.transaction(id: id) { originals.insert(transaction.originalTransactionId) }
        }
        var added: [String: Withholding] = [:]
        for original in originals where withheld[original].map({ since > $0.since }) ?? true {
            added[original] = Withholding(since: since)
        }
        for transaction in transactions { added[transaction.originalTransactionId]?.saw(transaction.signedDate) }
        for (original, info) in renewalInfos { added[original]?.saw(info.signedDate) }
        withheld.merge(added) { $1 }
        return originals.sorted()
    }

    /// Whether the subscription `original` is withheld now: the engine skips it.
    func isWithheld(_ original: String) -> Bool { !withheld.isEmpty && withheld[original]?.isWithheld == true }

    /// Original transaction ids of the subscriptions withheld now, sorted.
    package var withheldOriginalTransactionIds: [String] {
        withheld.filter(\.value.isWithheld).map(\.key).sorted()
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
        let kept = transactions.indices.filter { places[transactions[$0].originalTransactionId]?.latest == $0 }.map { transactions[$0] }
        transactions = kept
        places = [:]
        places.reserveCapacity(kept.count)
        for (position, transaction) in kept.enumerated() {
            places[transaction.transactionId, default: Place()].transaction = position
            places[transaction.originalTransactionId, default: Place()].latest = position
        }
    }

    /// What a compacted store holds beyond its facts: the clock floor, the product history and the
    /// withheld subscriptions. A checkpoint is the facts (``checkpointEvents``) followed by this.
    package struct Summary: Sendable, Hashable {
        package var newestSignedDate: Date?
        /// By product id: how many transaction versions named it, and how many of them redeemed
        /// an introductory offer (counts of history, dropped transactions included).
        package var productUses: [String: ProductUse]
        /// Subscriptions withheld after a lost journal record, by original transaction id, and since when.
        package var withheld: [String: Date]

        package init(newestSignedDate: Date?, productUses: [String: ProductUse], withheld: [String: Date]) {
            self.newestSignedDate = newestSignedDate
            self.productUses = productUses
            self.withheld = withheld
        }
    }

    /// The facts a checkpoint holds: every transaction held, every renewal info, the app
    /// transactions and the grants, each kind in the order of its id.
    package var checkpointEvents: [StoreEvent] {
        transactions.sorted { $0.transactionId < $1.transactionId }.map { .transaction($0) }
            + renewalInfos.sorted { $0.key < $1.key }.map { .renewalInfo($0.value) }
            + appTransactions.sorted { $0.key < $1.key }.map { .appTransaction($0.value) }
            + grants.sorted { $0.key < $1.key }.map { .grant($0.value) }
    }

    /// See ``Summary``.
    package var summary: Summary {
        Summary(newestSignedDate: newestSignedDate, productUses: productUses, withheld: withheld.filter(\.value.isWithheld).mapValues(\.since))
    }

    /// Sets what `summary` says, after a checkpoint's events were inserted into an empty store:
    /// the checkpoint then evaluates exactly as the store it was taken from.
    package mutating func restore(_ summary: Summary) {
        saw(summary.newestSignedDate)
        productUses.merge(summary.productUses) { $1 }
        for (original, since) in summary.withheld {
            withhold(transactionIds: [], originalTransactionIds: [original], everything: false, since: since)
        }
    }

    // MARK: Keeping the latest

    /// Inserts a version of a transaction: kept when it is new, or newer than the version held.
    private mutating func insert(_ transaction: consuming StoreTransaction) -> Bool {
        let original = transaction.originalTransactionId
        var known: Int?
        update(&places[transaction.transactionId, default: Place()]) { place in
            known = place.transaction
            place.transaction = known ?? transactions.count
        }
        if let known, !Self.isNewer(transaction.signedDate, than: transactions[known].signedDate) { return false }
        use(transaction, by: 1)
        if !withheld.isEmpty { withheld[original]?.saw(transaction.signedDate) }
        var held: StoreTransaction?
        let position = known ?? transactions.count
        if let known {
            held = transactions[known]
            use(transactions[known], by: -1)
            transactions[known] = transaction
        } else {
            transactions.append(transaction)
        }
        if let held, held.originalTransactionId != original, places[held.originalTransactionId]?.latest == position {
            // Moved to another subscription: the one it left chooses again among its others.
            let chosen = latestMember(of: held.originalTransactionId)
            places[held.originalTransactionId]?.latest = chosen
        }
        var choosesAgain = false
        update(&places[original, default: Place()]) { place in
            if let current = place.latest, current != position, !Self.isLater(transactions[position], than: transactions[current]) { return }
            // A new version of the latest whose dates moved back: another member may now be later.
            choosesAgain = place.latest == position && held.map { Self.isLater($0, than: transactions[position]) } == true
            place.latest = position
        }
        if choosesAgain {
            let chosen = latestMember(of: original)
            places[original]?.latest = chosen
        }
        return true
    }

    /// The position of the latest (rule 1) of the transactions of `original`, looked for among
    /// all held: only when a latest transaction moves back or away, which App Store data does not do.
    private func latestMember(of original: String) -> Int? {
        var latest: Int?
        for (position, transaction) in transactions.enumerated() where transaction.originalTransactionId == original {
            if let current = latest, !Self.isLater(transaction, than: transactions[current]) { continue }
            latest = position
        }
        return latest
    }

    private mutating func use(_ transaction: StoreTransaction, by delta: Int) {
        productUses[transaction.productId, default: ProductUse()].transactions += delta
        if transaction.offerType == .introductory { productUses[transaction.productId, default: ProductUse()].introductoryOffers += delta }
    }

    /// Rule 1 of ``EntitlementEngine``: whether `a` counts rather than `b` for their subscription.
    static func isLater(_ a: StoreTransaction, than b: StoreTransaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate > b.purchaseDate }
        let aSigned = a.signedDate ?? .distantPast, bSigned = b.signedDate ?? .distantPast
        if aSigned != bSigned { return aSigned > bSigned }
        return a.transactionId > b.transactionId
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
        lhs.newestSignedDate == rhs.newestSignedDate && lhs.transactionsByID() == rhs.transactionsByID()
            && lhs.renewalInfos == rhs.renewalInfos
            && lhs.withheldOriginalTransactionIds == rhs.withheldOriginalTransactionIds
            && lhs.appTransactions == rhs.appTransactions && lhs.grants == rhs.grants
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(newestSignedDate)
        hasher.combine(transactionsByID())
        hasher.combine(renewalInfos)
        hasher.combine(appTransactions)
        hasher.combine(grants)
    }
}

/// Runs `body` on `value` in place: `update(&table[key, default: …]) { … }` is one lookup of `key`.
private func update<Value>(_ value: inout Value, _ body: (inout Value) -> Void) { body(&value) }
