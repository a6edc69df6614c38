import Foundation
import Testing
@testable import StoreKitFormats

/// How a transaction is stored: small enough for a daemon holding hundreds of thousands, and a
/// value whatever order its fields were set in (closed fields in a byte, other values as written).
@Suite struct StoredTransactionTests {
    static let purchased = Date(timeIntervalSince1970: 1_767_225_600)

    @Test("A stored transaction is at most 176 bytes inline: no field is padded")
    func size() {
        #expect(MemoryLayout<StoreTransaction>.stride <= 176)
    }

    @Test("A value outside a closed set, and every optional text, read back as written")
    func valuesAsWritten() {
        var transaction = StoreTransaction(
            transactionId: "1", originalTransactionId: "1", productId: "p", purchaseDate: Self.purchased,
            type: StoreProductType(rawValue: "Magic"), inAppOwnershipType: OwnershipType(rawValue: "SOMETHING_NEW"),
            revocationReason: RevocationReason(rawValue: -3), offerType: OfferType(rawValue: 10),
            environment: StoreEnvironment(rawValue: "Elsewhere"), storefront: "USA", currency: "EUR")
        #expect(transaction.type.rawValue == "Magic")
        #expect(transaction.inAppOwnershipType.rawValue == "SOMETHING_NEW")
        #expect(transaction.revocationReason?.rawValue == -3)
        #expect(transaction.offerType?.rawValue == 10)
        #expect(transaction.environment == .unknown("Elsewhere"))
        #expect(transaction.storefront == "USA" && transaction.currency == "EUR" && transaction.offerPeriod == nil)
        transaction.type = .consumable
        transaction.offerType = .winBack
        #expect(transaction.type == .consumable && transaction.offerType == .winBack)
    }

    @Test("Equal when the fields are, whatever was set and cleared on the way")
    func equalityByValue() {
        let plain = StoreTransaction(
            transactionId: "1", originalTransactionId: "1", productId: "p", purchaseDate: Self.purchased, type: .autoRenewable,
            environment: .xcode)
        var changed = plain
        changed.type = StoreProductType(rawValue: "Magic")
        changed.environment = .unknown("Elsewhere")
        changed.storefront = "USA"
        changed.appAccountToken = "token"
        #expect(changed != plain)
        changed.type = .autoRenewable
        changed.environment = .xcode
        changed.storefront = nil
        changed.appAccountToken = nil
        #expect(changed == plain)
        #expect(changed.hashValue == plain.hashValue)
    }
}
