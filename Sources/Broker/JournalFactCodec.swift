import StoreKitFormats
import FoundationEssentials

/// Reads the fact records in words of checkpoints written before fact records
/// (``JournalRecord/Kind/fact``): text transactions and renewal infos
/// (``JournalRecord/Kind/transaction``, ``JournalRecord/Kind/renewalInfo``), app transactions and
/// grants (``JournalRecord/Kind/checkpointAppTransaction``, ``JournalRecord/Kind/checkpointGrant``),
/// so such a journal still replays; the daemon then rewrites it. Nothing writes them any more. A
/// payload is every field of the fact in a fixed order, one word each (``JournalWords``), `-` when
/// absent; dates are the 16 hex digits of their bits.
enum JournalFactCodec {
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
