import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Refuses an input in which one `transactionId` appears with different immutable fields.
///
/// The App Store sends a transaction again when it changes (a refund adds `revocationDate`, an
/// upgrade sets `isUpgraded`, renewals re-sign it), so repeats are normal; but a transaction's
/// product, original transaction, purchase date, bundle and environment never change. Two lines
/// that disagree on them are corrupt or forged, and letting the newer `signedDate` win would turn
/// a monthly subscription into a lifetime purchase. Checked per input (one `ingest` or
/// `evaluate`), before anything is queued.
public struct TransactionConflicts: Sendable {
    private var seen: [String: (fields: [String], line: Int)] = [:]

    public init() {}

    /// Records the transactions among `events`, read from input line `line` (1-based).
    /// - Throws: ``BrokerError/badInput(_:)`` naming the transaction, the field and the earlier
    ///   line, when a transaction contradicts one seen before.
    public mutating func check(_ events: [StoreEvent], line: Int) throws(BrokerError) {
        for case .transaction(let transaction) in events {
            let fields = Self.immutableFields(transaction)
            if let earlier = seen[transaction.transactionId] {
                if let index = fields.indices.first(where: { fields[$0] != earlier.fields[$0] }) {
                    throw .badInput(
                        "transactionId '\(transaction.transactionId)' conflicts with line \(earlier.line): \(Self.fieldNames[index]) differs")
                }
            } else {
                seen[transaction.transactionId] = (fields, line)
            }
        }
    }

    private static let fieldNames = ["productId", "originalTransactionId", "purchaseDate", "bundleId", "environment"]

    private static func immutableFields(_ transaction: StoreTransaction) -> [String] {
        [
            transaction.productId, transaction.originalTransactionId, "\(transaction.purchaseDate.timeIntervalSince1970)",
            transaction.bundleId ?? "", transaction.environment?.rawValue ?? "",
        ]
    }
}
