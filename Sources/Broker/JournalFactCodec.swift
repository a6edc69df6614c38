import EntitlementModel
import FoundationEssentials

/// The payloads of a checkpoint's fact records in words (``JournalRecord/Kind/transaction`` and
/// ``JournalRecord/Kind/renewalInfo`` of earlier checkpoints, ``JournalRecord/Kind/checkpointAppTransaction``
/// and ``JournalRecord/Kind/checkpointGrant``): every field of a ``StoreTransaction``,
/// ``RenewalInfo``, ``AppTransaction`` or ``EntitlementGrant`` in a fixed order, one word each
/// (``JournalWords``), `-` when absent.
///
/// Not JSON: a checkpoint of 200,000 transactions must replay in well under a second, and a JSON
/// object costs a dictionary per line to parse; dates are the 16 hex digits of their bits, so
/// they read back exactly. Written only by the daemon, from facts it validated when they were
/// first journaled; replay validates them against the catalog again.
enum JournalFactCodec {
    // MARK: Writing

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

    // MARK: Reading

    /// Reads the words of a payload one at a time; any malformed word makes the record unreadable.
    private struct Words {
        let bytes: ArraySlice<UInt8>
        var position: Int
        var failed = false

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            position = bytes.startIndex
        }

        mutating func next() -> ArraySlice<UInt8>? {
            guard position <= bytes.endIndex, !failed else { failed = true; return nil }
            let end = bytes[position...].firstIndex(of: 0x20) ?? bytes.endIndex
            defer { position = end + 1 }
            let word = bytes[position..<end]
            return word == [0x2D] ? nil : word
        }

        var atEnd: Bool { position > bytes.endIndex }

        mutating func text() -> String? {
            guard let word = next() else { return nil }
            if word.allSatisfy({ $0 != 0x25 }) { return String(decoding: word, as: UTF8.self) }
            guard let value = JournalWords.unescape(word) else { failed = true; return nil }
            return value
        }

        mutating func required() -> String {
            guard let value = text() else { failed = true; return "" }
            return value
        }

        mutating func date() -> Date? {
            guard let word = next() else { return nil }
            guard let date = JournalWords.date(word) else { failed = true; return nil }
            return date
        }

        mutating func number() -> Int64? {
            guard let word = next() else { return nil }
            guard let value = Int64(String(decoding: word, as: UTF8.self)) else { failed = true; return nil }
            return value
        }
    }

    static func transaction(_ payload: ArraySlice<UInt8>) -> StoreTransaction? {
        var w = Words(payload)
        let transactionId = w.required(), originalTransactionId = w.required(), webOrderLineItemId = w.text(), bundleId = w.text()
        let productId = w.required(), subscriptionGroupIdentifier = w.text()
        guard let purchaseDate = w.date() else { return nil }
        let originalPurchaseDate = w.date(), expiresDate = w.date(), quantity = w.number()
        let type = w.required(), appAccountToken = w.text(), ownership = w.required(), signedDate = w.date()
        let revocationReason = w.number(), revocationDate = w.date(), revocationType = w.text(), isUpgraded = w.number()
        let offerType = w.number(), offerIdentifier = w.text(), offerDiscountType = w.text(), offerPeriod = w.text()
        let environment = w.text(), storefront = w.text(), storefrontId = w.text(), transactionReason = w.text(), price = w.number()
        let currency = w.text()
        guard !w.failed, w.atEnd else { return nil }
        return StoreTransaction(
            transactionId: transactionId, originalTransactionId: originalTransactionId, webOrderLineItemId: webOrderLineItemId,
            bundleId: bundleId, productId: productId, subscriptionGroupIdentifier: subscriptionGroupIdentifier, purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate, quantity: quantity.map { Int($0) },
            type: StoreProductType(rawValue: type), appAccountToken: appAccountToken, inAppOwnershipType: OwnershipType(rawValue: ownership),
            signedDate: signedDate, revocationReason: revocationReason.map { RevocationReason(rawValue: Int($0)) }, revocationDate: revocationDate,
            revocationType: revocationType.map(RevocationType.init(rawValue:)), isUpgraded: isUpgraded == 1,
            offerType: offerType.map { OfferType(rawValue: Int($0)) }, offerIdentifier: offerIdentifier,
            offerDiscountType: offerDiscountType.map(OfferDiscountType.init(rawValue:)), offerPeriod: offerPeriod,
            environment: environment.map(StoreEnvironment.init(rawValue:)), storefront: storefront, storefrontId: storefrontId,
            transactionReason: transactionReason.map(TransactionReason.init(rawValue:)), price: price, currency: currency)
    }

    static func appTransaction(_ payload: ArraySlice<UInt8>) -> AppTransaction? {
        var w = Words(payload)
        let id = w.required(), bundleId = w.text(), version = w.text(), purchased = w.date(), environment = w.text(), signed = w.date()
        let isSigned = w.number()
        guard !w.failed, w.atEnd, let isSigned, isSigned == 0 || isSigned == 1 else { return nil }
        return AppTransaction(
            appTransactionId: id, bundleId: bundleId, originalApplicationVersion: version, originalPurchaseDate: purchased,
            environment: environment.map(StoreEnvironment.init(rawValue:)), signedDate: signed, isSigned: isSigned == 1)
    }

    static func grant(_ payload: ArraySlice<UInt8>) -> EntitlementGrant? {
        var w = Words(payload)
        let id = w.required(), entitlement = w.required(), expires = w.date(), revoked = w.number(), reason = w.text()
        let bundleId = w.required(), signed = w.date(), keyId = w.text()
        guard !w.failed, w.atEnd, let signed, let revoked, revoked == 0 || revoked == 1 else { return nil }
        return EntitlementGrant(
            grantId: id, entitlement: entitlement, expiresDate: expires, revoked: revoked == 1, reason: reason, bundleId: bundleId,
            signedDate: signed, keyId: keyId)
    }

    static func renewalInfo(_ payload: ArraySlice<UInt8>) -> RenewalInfo? {
        var w = Words(payload)
        func flag() -> Bool? { w.number().map { $0 == 1 } }
        let original = w.required(), autoRenewStatus = flag(), autoRenewProductId = w.text(), productId = w.text()
        let inRetry = flag(), grace = w.date(), intent = w.number(), signedDate = w.date(), renewalDate = w.date()
        let recentStart = w.date(), offerType = w.number(), offerIdentifier = w.text(), offerDiscountType = w.text(), environment = w.text()
        guard !w.failed, w.atEnd else { return nil }
        return RenewalInfo(
            originalTransactionId: original, autoRenewStatus: autoRenewStatus, autoRenewProductId: autoRenewProductId, productId: productId,
            isInBillingRetryPeriod: inRetry, gracePeriodExpiresDate: grace, expirationIntent: intent.map { ExpirationIntent(rawValue: Int($0)) },
            signedDate: signedDate, renewalDate: renewalDate, recentSubscriptionStartDate: recentStart,
            offerType: offerType.map { OfferType(rawValue: Int($0)) }, offerIdentifier: offerIdentifier,
            offerDiscountType: offerDiscountType.map(OfferDiscountType.init(rawValue:)), environment: environment.map(StoreEnvironment.init(rawValue:)))
    }
}
