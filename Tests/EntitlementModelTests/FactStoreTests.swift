import Foundation
import Testing
@testable import Entitlements
@testable import StoreKitFormats

@Suite(.timeLimit(.minutes(1))) struct FactStoreTests {
    private typealias F = Fixtures

    @Test func replayIsIdempotent() throws {
        let events = try F.events([F.xcodeSample, F.renewal(original: "0", signed: "2023-10-19T02:00:00Z")])
        var store = FactStore()
        let changed1 = store.insert(events[0])
        #expect(changed1)
        let changed2 = store.insert(events[1])
        #expect(changed2)
        let before = store
        let changed3 = store.insert(events[0])
        #expect(!changed3)
        let changed4 = store.insert(events[1])
        #expect(!changed4)
        let changed5 = store.insert(contentsOf: events)
        #expect(!changed5)
        #expect(store == before)
        #expect(store.newestSignedDate == F.date("2023-10-19T02:00:00Z"))
    }

    /// The store keeps a transaction as a fixed-width record plus its other fields as bytes
    /// (repeating strings interned): every field of every version must read back exactly.
    @Test func everyFieldReadsBackExactly() {
        let full = StoreTransaction(
            transactionId: "2000000123456789", originalTransactionId: "2000000000000001", webOrderLineItemId: "2000000099999999",
            bundleId: "com.irenews.geko", productId: "com.irenews.geko.plus.monthly", subscriptionGroupIdentifier: "21482456",
            purchaseDate: Date(timeIntervalSince1970: 1_767_225_600.125), originalPurchaseDate: Date(timeIntervalSince1970: 1_700_000_000.001),
            expiresDate: Date(timeIntervalSince1970: 1_769_904_000.5), quantity: 3, type: .autoRenewable,
            appAccountToken: "7E3F1C2A-0000-4000-8000-00000000ÄÖ", inAppOwnershipType: .familyShared,
            signedDate: Date(timeIntervalSince1970: 1_767_225_601.875), revocationReason: RevocationReason(rawValue: 1),
            revocationDate: Date(timeIntervalSince1970: 1_767_300_000), revocationType: RevocationType(rawValue: "REFUND_FULL"),
            isUpgraded: true, offerType: OfferType(rawValue: 1), offerIdentifier: "launch offer", offerDiscountType: .freeTrial,
            offerPeriod: "P1W", environment: .unknown("Staging"), storefront: "CHE", storefrontId: "143459",
            transactionReason: TransactionReason(rawValue: "RENEWAL"), price: -Int64.max, currency: "CHF")
        let minimal = StoreTransaction(
            transactionId: "", originalTransactionId: "-", productId: "", purchaseDate: Date(timeIntervalSinceReferenceDate: 0),
            type: StoreProductType(rawValue: ""), inAppOwnershipType: OwnershipType(rawValue: "SOMETHING_NEW"))
        // More distinct repeating values than the interned table compares in turn.
        let many = (0..<40).map { index in
            StoreTransaction(
                transactionId: "many-\(index)", originalTransactionId: "many-\(index % 7)", bundleId: "bundle-\(index % 20)",
                productId: "product-\(index)", purchaseDate: Date(timeIntervalSince1970: 1_767_225_600 + Double(index)),
                type: .nonConsumable, storefront: "S\(index)", price: Int64(index) << 40, currency: index.isMultiple(of: 2) ? "EUR" : nil)
        }
        var store = FactStore()
        for transaction in [full, minimal] + many { store.insert(.transaction(transaction)) }
        #expect(store.transaction(id: full.transactionId) == full)
        #expect(store.transaction(id: minimal.transactionId) == minimal)
        for transaction in many { #expect(store.transaction(id: transaction.transactionId) == transaction) }
        // A newer version replaces every field; compaction keeps the latest of each subscription whole.
        var newer = full
        newer.signedDate = Date(timeIntervalSince1970: 1_767_400_000)
        newer.revocationDate = nil
        newer.storefront = nil
        newer.productId = "com.irenews.geko.plus.annual"
        let replaced = store.insert(.transaction(newer))
        #expect(replaced)
        #expect(store.transaction(id: full.transactionId) == newer)
        store.compact()
        #expect(store.transaction(id: full.transactionId) == newer)
        #expect(store.transaction(id: minimal.transactionId) == minimal)
        #expect(store.transactionCount == 2 + 7)
        for transaction in many.suffix(7) { #expect(store.transaction(id: transaction.transactionId) == transaction) }
    }

    /// Ids are indexed by their bytes, yet compare as Strings do: canonically equivalent ids
    /// (composed or decomposed accents, a Greek question mark and a semicolon) are one transaction
    /// and one subscription, and many ids all stay findable.
    @Test func identifiersCompareAsStrings() {
        let date = Date(timeIntervalSince1970: 1_767_225_600)
        func transaction(_ id: String, original: String, signed: Double) -> StoreEvent {
            .transaction(
                StoreTransaction(
                    transactionId: id, originalTransactionId: original, productId: "p", purchaseDate: date, type: .autoRenewable,
                    signedDate: date.addingTimeInterval(signed)))
        }
        var store = FactStore()
        let first = store.insert(transaction("caf\u{E9}", original: "o;1", signed: 0))
        let newer = store.insert(transaction("cafe\u{301}", original: "o\u{37E}1", signed: 1))
        let repeated = store.insert(transaction("caf\u{E9}", original: "o;1", signed: 1))
        #expect(first && newer && !repeated)
        #expect(store.transactionCount == 1)
        #expect(store.transaction(id: "caf\u{E9}")?.transactionId.unicodeScalars.count == 5)  // the newer version, as written
        store.insert(.renewalInfo(RenewalInfo(originalTransactionId: "o\u{37E}1", autoRenewStatus: false, signedDate: date)))
        #expect(store.renewalInfo(original: "o;1")?.autoRenewStatus == false)
        for index in 0..<5_000 { store.insert(transaction("id-\(index)", original: "o-\(index % 50)", signed: 0)) }
        #expect(store.transactionCount == 5_001)
        for index in stride(from: 0, to: 5_000, by: 7) { #expect(store.transaction(id: "id-\(index)")?.originalTransactionId == "o-\(index % 50)") }
        #expect(store.transaction(id: "id-5000") == nil)
        store.compact()
        #expect(store.transactionCount == 51)
        #expect(store.transaction(id: "id-999")?.originalTransactionId == "o-49")  // the greatest id of o-49 (rule 1 on a tie)
        #expect(store.transaction(id: "cafe\u{301}") != nil)
    }

    @Test func newestSignedDateWinsPerTransaction() throws {
        let older = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")])[0]
        let newer = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z",
                                                signed: "2025-01-05T00:00:00Z", ["revocationDate": .double(F.ms("2025-01-05T00:00:00Z"))])])[0]
        let sameDateDifferent = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-03-01T00:00:00Z",
                                                            signed: "2025-01-05T00:00:00Z")])[0]
        var store = FactStore([older])
        let changed6 = store.insert(newer)
        #expect(changed6)
        #expect(store.transactionsByID()["1"]?.revocationDate == F.date("2025-01-05T00:00:00Z"))
        let changed7 = store.insert(older)
        #expect(!changed7, "an older version never replaces a newer one")
        let changed8 = store.insert(sameDateDifferent)
        #expect(!changed8, "on a tie the existing version stays")
        #expect(store.transactionsByID()["1"]?.revocationDate != nil)
        #expect(store.newestSignedDate == F.date("2025-01-05T00:00:00Z"))
    }

    @Test func newestSignedDateWinsPerRenewalInfo() throws {
        let first = try F.events([F.renewal(original: "9", signed: "2025-01-01T00:00:00Z")])[0]
        let second = try F.events([F.renewal(original: "9", signed: "2025-01-02T00:00:00Z", ["autoRenewStatus": .int(0)])])[0]
        var store = FactStore([second])
        let changed9 = store.insert(first)
        #expect(!changed9)
        #expect(store.renewalInfo(original: "9")?.autoRenewStatus == false)
        #expect(store.renewalInfos.count == 1)
    }

    @Test func versionWithoutSignedDateNeverReplaces() throws {
        let signed = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z")])[0]
        let unsigned = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", ["signedDate": .null])])[0]
        var store = FactStore([signed])
        let changed10 = store.insert(unsigned)
        #expect(!changed10)
        var empty = FactStore()
        let changed11 = empty.insert(unsigned)
        #expect(changed11)
        #expect(empty.newestSignedDate == nil)
        let changed12 = empty.insert(signed)
        #expect(changed12, "a signed version replaces an unsigned one")
    }
}
