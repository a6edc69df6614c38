import StoreKitFormats
import FoundationEssentials

/// Refuses an input in which one `transactionId` appears with different immutable fields.
///
/// The App Store sends a transaction again when it changes (a refund adds `revocationDate`, an
/// upgrade sets `isUpgraded`, renewals re-sign it), so repeats are normal; but a transaction's
/// product, original transaction, purchase date, bundle and environment never change. Two lines
/// that disagree on them are corrupt or forged, and letting the newer `signedDate` win would turn
/// a monthly subscription into a lifetime purchase. Checked per input (one `ingest` or
/// `evaluate`), before anything is queued.
package struct TransactionConflicts: Sendable {
    private var seen: [String: Earlier] = [:]

    /// A transaction's first appearance: its fields and its line. A struct, not a tuple, whose
    /// metadata (and its table's) every ingest would build at run time.
    private struct Earlier {
        var fields: ImmutableFields
        var line: Int
    }

    package init() {}

    /// Records the transactions among `events`, read from input line `line` (1-based).
    /// - Throws: ``BrokerError/badInput(_:)`` naming the transaction, the field and the earlier
    ///   line, when a transaction contradicts one seen before.
    package mutating func check(_ events: [StoreEvent], line: Int) throws(BrokerError) {
        for case .transaction(let transaction) in events {
            let fields = Self.immutableFields(transaction)
            if let earlier = seen[transaction.transactionId] {
                if let index = fields.firstDifference(from: earlier.fields) {
                    throw .badInput(
                        "transactionId '\(transaction.transactionId)' conflicts with line \(earlier.line): \(Self.fieldNames[index]) differs")
                }
            } else {
                seen[transaction.transactionId] = Earlier(fields: fields, line: line)
            }
        }
    }

    private static let fieldNames = ["productId", "originalTransactionId", "purchaseDate", "bundleId", "environment"]

    /// What never changes about a transaction, compared field by field in ``fieldNames`` order
    /// (no text formatting: this runs for every line of every ingest).
    private struct ImmutableFields {
        var productId: String
        var originalTransactionId: String
        /// Seconds since 1970, as the earlier text comparison compared it.
        var purchaseDate: Double
        var bundleId: String?
        var environment: StoreEnvironment?

        /// Position in ``fieldNames`` of the first field that differs, if any.
        func firstDifference(from other: ImmutableFields) -> Int? {
            if productId != other.productId { return 0 }
            if originalTransactionId != other.originalTransactionId { return 1 }
            if purchaseDate != other.purchaseDate { return 2 }
            if (bundleId ?? "") != (other.bundleId ?? "") { return 3 }
            if (environment?.rawValue ?? "") != (other.environment?.rawValue ?? "") { return 4 }
            return nil
        }
    }

    private static func immutableFields(_ transaction: StoreTransaction) -> ImmutableFields {
        ImmutableFields(
            productId: transaction.productId, originalTransactionId: transaction.originalTransactionId,
            purchaseDate: transaction.purchaseDate.timeIntervalSince1970, bundleId: transaction.bundleId, environment: transaction.environment)
    }
}
