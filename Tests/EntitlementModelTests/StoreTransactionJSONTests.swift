import StoreKitFormats
import Foundation
import Testing

@Suite struct StoreTransactionJSONTests {
    @Test("jsonRepresentation decodes back to the same transaction, every field set")
    func roundTrip() throws {
        func date(_ ms: Double) -> Date { Date(timeIntervalSince1970: ms / 1000) }
        let transaction = StoreTransaction(
            transactionId: "2000000123", originalTransactionId: "2000000100", webOrderLineItemId: "w1", bundleId: "com.irenews.geko",
            productId: "com.irenews.geko.plus.monthly", subscriptionGroupIdentifier: "21409431", purchaseDate: date(1_790_000_000_000),
            originalPurchaseDate: date(1_780_000_000_000), expiresDate: date(1_792_000_000_000), quantity: 1, type: .autoRenewable,
            appAccountToken: "9b1c7c1e-0000-4000-8000-000000000001", inAppOwnershipType: .familyShared,
            signedDate: date(1_790_000_000_500), revocationReason: RevocationReason(rawValue: 1), revocationDate: date(1_791_000_000_000),
            revocationType: RevocationType(rawValue: "REFUND_FULL"), isUpgraded: true, offerType: OfferType(rawValue: 1),
            offerIdentifier: "intro", offerDiscountType: .freeTrial, offerPeriod: "P1W", environment: .xcode, storefront: "USA",
            storefrontId: "143441", transactionReason: TransactionReason(rawValue: "PURCHASE"), price: 2990, currency: "USD")
        let line = transaction.jsonRepresentation.serialized
        let events = try EventDecoder.decode(line: line.utf8, signatures: .optional)
        #expect(events == [.transaction(transaction)], "\(line)")
    }
}
