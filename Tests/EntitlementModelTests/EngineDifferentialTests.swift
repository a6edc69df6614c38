import Foundation
import TestSupport
import Testing
@testable import EntitlementModel

/// The indexed engine (``FactStore`` keeps the latest transaction per original as it inserts)
/// agrees with ``ReferenceEngine`` (the engine before indexing) on random fact sets, including new
/// versions that move a transaction to another original or back in time, and stays fast with
/// tens of thousands of subscriptions.
@Suite(.timeLimit(.minutes(1))) struct EngineDifferentialTests {
    static let base = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01

    /// Random events over a few originals, the sample catalog's products and some it does not
    /// list; about a third are new versions of an earlier transaction.
    static func randomEvents(count: Int, originals: Int, using random: inout SplitMix) -> [StoreEvent] {
        let products = [Fixtures.monthly, Fixtures.annual, Fixtures.lifetime, "com.example.unknown", "com.irenews.geko.coins"]
        let types: [StoreProductType] = [.autoRenewable, .nonConsumable, .consumable, .nonRenewing, StoreProductType(rawValue: "Odd")]
        var events: [StoreEvent] = []
        var ids: [String] = []
        func day(_ range: ClosedRange<Int>) -> Date { base.addingTimeInterval(Double(random.next(in: range)) * 86_400) }
        for index in 0..<count {
            if random.next(in: 0...9) < 2 {
                let original = "o\(random.next(in: 0...(originals - 1)))"
                events.append(
                    .renewalInfo(
                        RenewalInfo(
                            originalTransactionId: original, autoRenewStatus: random.next(in: 0...2) == 0 ? nil : random.next(in: 0...1) == 1,
                            isInBillingRetryPeriod: random.next(in: 0...2) == 0 ? nil : random.next(in: 0...1) == 1,
                            gracePeriodExpiresDate: random.next(in: 0...1) == 0 ? nil : day(0...90), signedDate: day(0...120))))
                continue
            }
            let id = !ids.isEmpty && random.next(in: 0...2) == 0 ? ids[random.next(in: 0...(ids.count - 1))] : "t\(index)"
            ids.append(id)
            let purchased = day(0...60)
            events.append(
                .transaction(
                    StoreTransaction(
                        transactionId: id, originalTransactionId: "o\(random.next(in: 0...(originals - 1)))",
                        productId: products[random.next(in: 0...(products.count - 1))], purchaseDate: purchased,
                        expiresDate: random.next(in: 0...4) == 0 ? nil : purchased.addingTimeInterval(Double(random.next(in: 1...40)) * 86_400),
                        type: types[random.next(in: 0...(types.count - 1))],
                        inAppOwnershipType: random.next(in: 0...3) == 0 ? .familyShared : .purchased,
                        signedDate: random.next(in: 0...5) == 0 ? nil : day(0...120),
                        revocationDate: random.next(in: 0...6) == 0 ? day(0...90) : nil,
                        revocationType: random.next(in: 0...1) == 0 ? .familyRevoke : nil, isUpgraded: random.next(in: 0...8) == 0,
                        offerType: random.next(in: 0...3) == 0 ? OfferType(rawValue: random.next(in: 1...5)) : nil,
                        offerDiscountType: random.next(in: 0...2) == 0 ? .payUpFront : nil)))
        }
        return events
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func indexedEngineAgreesWithTheReference(seed: UInt64) throws {
        var catalog = try Fixtures.catalog()
        var random = SplitMix(seed: seed)
        for round in 0..<40 {
            catalog.introductoryOfferPolicy = round % 2 == 0 ? .newSubscribersOnly : .oncePerGroup
            let events = Self.randomEvents(count: random.next(in: 1...40), originals: random.next(in: 1...6), using: &random)
            // Insertion order can matter for the store (a tie on signedDate keeps the first
            // version), so each order is compared with the reference on the same store.
            let stores = [FactStore(events), FactStore(events.shuffled(using: &random))]
            let now = Self.base.addingTimeInterval(Double(random.next(in: -10...130)) * 86_400 + Double(random.next(in: 0...1)) * 0.5)
            let floor = random.next(in: 0...3) == 0 ? now.addingTimeInterval(86_400 * 20) : nil
            for (order, store) in stores.enumerated() {
                let expected = ReferenceEngine(catalog: catalog).evaluate(store, now: now, floor: floor)
                let actual = EntitlementEngine(catalog: catalog).evaluate(store, now: now, floor: floor)
                if actual != expected {
                    Issue.record("seed \(seed) round \(round) order \(order): \(actual) != reference \(expected)")
                    return
                }
            }
        }
    }

    /// A history of 50,000 subscriptions to one product evaluates to the latest expiry among them
    /// (what it costs in time is measured by the benchmark's ingest rows, not bounded here).
    @Test func fiftyThousandSubscriptionsEvaluateToTheLatestExpiry() throws {
        let catalog = try Fixtures.catalog()
        var facts = FactStore()
        for index in 0..<50_000 {
            let purchased = Self.base.addingTimeInterval(Double(index))
            facts.insert(
                .transaction(
                    StoreTransaction(
                        transactionId: "bench-\(index)", originalTransactionId: "bench-\(index)", productId: Fixtures.monthly,
                        purchaseDate: purchased, expiresDate: purchased.addingTimeInterval(30 * 86_400), type: .autoRenewable,
                        signedDate: purchased)))
        }
        let result = EntitlementEngine(catalog: catalog).evaluate(facts, now: Self.base.addingTimeInterval(86_400))
        #expect(result.entitlements["plus"]?.expiresAt == Self.base.addingTimeInterval(49_999 + 30 * 86_400))
    }
}
