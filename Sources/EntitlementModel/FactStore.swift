import Foundation

/// The facts the engine evaluates: the current version of every transaction and of every
/// subscription's renewal info. A pure value; the daemon journals the raw input lines and rebuilds
/// a store by inserting them again.
///
/// Versions: for one `transactionId` (or, for renewal info, one `originalTransactionId`) the
/// version with the newest `signedDate` wins. On a tie, or when the newcomer has no `signedDate`
/// and an existing version does, the existing version stays, so replaying the same input is a
/// no-op and the order of replay does not matter.
public struct FactStore: Sendable, Hashable {
    /// Current version of each transaction, by `transactionId`.
    public private(set) var transactions: [String: StoreTransaction] = [:]
    /// Current renewal info of each subscription, by `originalTransactionId`.
    public private(set) var renewalInfos: [String: RenewalInfo] = [:]
    /// The newest `signedDate` of any fact held: a lower bound for "now" (the clock floor).
    public private(set) var newestSignedDate: Date?

    public init() {}

    /// A store holding `events`, inserted in order.
    public init(_ events: some Sequence<StoreEvent>) {
        for event in events { insert(event) }
    }

    /// Inserts one fact.
    /// - Returns: `true` when the store changed; `false` when the event was already known or is
    ///   older than the version held.
    @discardableResult
    public mutating func insert(_ event: StoreEvent) -> Bool {
        switch event {
        case .transaction(let transaction):
            if let existing = transactions[transaction.transactionId], !Self.isNewer(transaction.signedDate, than: existing.signedDate) {
                return false
            }
            transactions[transaction.transactionId] = transaction
        case .renewalInfo(let info):
            if let existing = renewalInfos[info.originalTransactionId], !Self.isNewer(info.signedDate, than: existing.signedDate) {
                return false
            }
            renewalInfos[info.originalTransactionId] = info
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

    private static func isNewer(_ candidate: Date?, than existing: Date?) -> Bool {
        guard let candidate else { return false }
        guard let existing else { return true }
        return candidate > existing
    }
}
