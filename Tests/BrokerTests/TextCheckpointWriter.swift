@testable import Broker
import StoreKitFormats
import Foundation

/// The writer of the fact records in words earlier daemons put in checkpoints, kept to make such
/// journals for the tests that check they still replay.
extension JournalFactCodec {
    static func payload(_ t: StoreTransaction) -> [UInt8] {
        var words: [String] = []
        words.reserveCapacity(28)
        func text(_ value: String?) { words.append(value.map(word) ?? "-") }
        func date(_ value: Date?) { words.append(value.map(JournalWords.date) ?? "-") }
        func number(_ value: Int64?) { words.append(value.map { String($0) } ?? "-") }
        text(t.transactionId); text(t.originalTransactionId); text(t.webOrderLineItemId); text(t.bundleId); text(t.productId)
        text(t.subscriptionGroupIdentifier); date(t.purchaseDate); date(t.originalPurchaseDate); date(t.expiresDate)
        number(t.quantity.map(Int64.init)); text(t.type.rawValue); text(t.appAccountToken); text(t.inAppOwnershipType.rawValue)
        date(t.signedDate); number(t.revocationReason.map { Int64($0.rawValue) }); date(t.revocationDate); text(t.revocationType?.rawValue)
        number(t.isUpgraded ? 1 : 0); number(t.offerType.map { Int64($0.rawValue) }); text(t.offerIdentifier)
        text(t.offerDiscountType?.rawValue); text(t.offerPeriod); text(t.environment?.rawValue); text(t.storefront); text(t.storefrontId)
        text(t.transactionReason?.rawValue); number(t.price); text(t.currency)
        return Array(words.joined(separator: " ").utf8)
    }

    static func payload(_ r: RenewalInfo) -> [UInt8] {
        var words: [String] = []
        func text(_ value: String?) { words.append(value.map(word) ?? "-") }
        func date(_ value: Date?) { words.append(value.map(JournalWords.date) ?? "-") }
        func flag(_ value: Bool?) { words.append(value.map { $0 ? "1" : "0" } ?? "-") }
        func number(_ value: Int?) { words.append(value.map { String($0) } ?? "-") }
        text(r.originalTransactionId); flag(r.autoRenewStatus); text(r.autoRenewProductId); text(r.productId); flag(r.isInBillingRetryPeriod)
        date(r.gracePeriodExpiresDate); number(r.expirationIntent?.rawValue); date(r.signedDate); date(r.renewalDate)
        date(r.recentSubscriptionStartDate); number(r.offerType?.rawValue); text(r.offerIdentifier); text(r.offerDiscountType?.rawValue)
        text(r.environment?.rawValue)
        return Array(words.joined(separator: " ").utf8)
    }

    static func payload(_ a: AppTransaction) -> [UInt8] {
        var words: [String] = []
        func text(_ value: String?) { words.append(value.map(word) ?? "-") }
        func date(_ value: Date?) { words.append(value.map(JournalWords.date) ?? "-") }
        text(a.appTransactionId); text(a.bundleId); text(a.originalApplicationVersion); date(a.originalPurchaseDate)
        text(a.environment?.rawValue); date(a.signedDate); words.append(a.isSigned ? "1" : "0")
        return Array(words.joined(separator: " ").utf8)
    }

    static func payload(_ g: EntitlementGrant) -> [UInt8] {
        var words: [String] = []
        func text(_ value: String?) { words.append(value.map(word) ?? "-") }
        func date(_ value: Date?) { words.append(value.map(JournalWords.date) ?? "-") }
        text(g.grantId); text(g.entitlement); date(g.expiresDate); words.append(g.revoked ? "1" : "0"); text(g.reason); text(g.bundleId)
        date(g.signedDate); text(g.keyId)
        return Array(words.joined(separator: " ").utf8)
    }

    /// `text` as one word; a lone `-` (which means absent) is escaped.
    private static func word(_ text: String) -> String { text == "-" ? "%2D" : JournalWords.escape(text) }
}
