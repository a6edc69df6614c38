import Foundation
import Testing
@testable import Entitlements
@testable import StoreKitFormats

/// One scenario: input lines, an instant, and the expected status of the `plus` entitlement.
struct EngineCase: Sendable, CustomStringConvertible {
    var name: String
    var lines: [String]
    var now: String
    var floor: String? = nil
    var expected: EntitlementStatus
    /// `nil` means "expect no next transition".
    var nextTransition: String? = nil
    var description: String { name }
}

private typealias F = Fixtures

private let sampleExpiry = Date(timeIntervalSince1970: 1700358336049.7297 / 1000)
private let monthlyJan = F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")
private let lifetime = F.transaction(id: "L1", product: F.lifetime, purchased: "2024-06-01T00:00:00Z")

private func status(
    _ state: EntitlementState, _ product: String?, expires: String? = nil, period: PeriodType = .normal, renew: Bool = false,
    ownership: Ownership = .purchased, alsoGranting: [String] = []
) -> EntitlementStatus {
    let active = [.subscribed, .inGracePeriod, .purchased].contains(state)
    return EntitlementStatus(
        active: active, state: state, periodType: period, expiresAt: expires.map(F.date), productId: product, willRenew: renew,
        ownership: ownership, products: active ? [product].compactMap { $0 } + alsoGranting : [],
        revocation: state == .revoked ? .refunded : nil)
}

let engineCases: [EngineCase] = [
    // Spine.
    EngineCase(name: "nothing bought", lines: [], now: "2025-01-15T00:00:00Z", expected: .notPurchased),
    EngineCase(name: "Xcode sample: trial before expiry", lines: [F.xcodeSample], now: "2023-10-20T00:00:00Z",
               expected: EntitlementStatus(active: true, state: .subscribed, periodType: .trial, expiresAt: sampleExpiry,
                                           productId: F.monthly, willRenew: true, ownership: .purchased),
               nextTransition: ISO8601.string(from: sampleExpiry)),
    EngineCase(name: "Xcode sample: expired after expiry", lines: [F.xcodeSample], now: "2023-11-19T01:45:37Z",
               expected: status(.expired, F.monthly, period: .trial)),
    EngineCase(name: "subscription active until expiresDate", lines: [monthlyJan], now: "2025-01-31T23:59:59Z",
               expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", renew: true), nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "subscription expired at expiresDate", lines: [monthlyJan], now: "2025-02-01T00:00:00Z",
               expected: status(.expired, F.monthly)),
    EngineCase(name: "lifetime lasts forever", lines: [lifetime], now: "2199-01-01T00:00:00Z", expected: status(.purchased, F.lifetime)),
    EngineCase(name: "revocation revokes", lines: [
        monthlyJan,
        F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-05T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-01-05T00:00:00Z")), "revocationReason": .int(0), "revocationType": "REFUND_FULL"]),
    ], now: "2025-01-10T00:00:00Z", expected: status(.revoked, F.monthly)),
    EngineCase(name: "offerType 1 without discount type is a trial", lines: [
        F.transaction(id: "t", purchased: "2025-01-01T00:00:00Z", expires: "2025-01-08T00:00:00Z", ["offerType": .int(1)]),
    ], now: "2025-01-02T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-01-08T00:00:00Z", period: .trial, renew: true),
       nextTransition: "2025-01-08T00:00:00Z"),

    // Which transaction of a subscription counts: refunds and their reversal, upgrades, levels
    // within a group, downgrades, grace.
    EngineCase(name: "latest per original transaction counts: old period refunded, renewal stands", lines: [
        F.transaction(id: "r1", original: "o", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-02-03T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-02-03T00:00:00Z"))]),
        F.transaction(id: "r2", original: "o", purchased: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z"),
    ], now: "2025-02-10T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-03-01T00:00:00Z", renew: true),
       nextTransition: "2025-03-01T00:00:00Z"),
    EngineCase(name: "latest per original transaction counts: latest renewal refunded", lines: [
        F.transaction(id: "r1", original: "o", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z"),
        F.transaction(id: "r2", original: "o", purchased: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z", signed: "2025-02-05T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-02-05T00:00:00Z"))]),
    ], now: "2025-02-10T00:00:00Z", expected: status(.revoked, F.monthly)),
    EngineCase(name: "refund reversal restores access", lines: [
        monthlyJan,
        F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-05T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-01-05T00:00:00Z"))]),
        F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-07T00:00:00Z"),
    ], now: "2025-01-10T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "refund reversal wins whatever the arrival order", lines: [
        F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-07T00:00:00Z"),
        F.transaction(id: "m1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-05T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-01-05T00:00:00Z"))]),
        monthlyJan,
    ], now: "2025-01-10T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "an upgraded transaction grants nothing", lines: [
        F.transaction(id: "u1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", ["isUpgraded": true]),
    ], now: "2025-01-10T00:00:00Z", expected: .notPurchased),
    EngineCase(name: "upgrade: the annual that replaced the monthly decides", lines: [
        F.transaction(id: "u1", original: "o", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", signed: "2025-01-10T00:00:00Z",
                      ["isUpgraded": true]),
        F.transaction(id: "u2", original: "o", product: F.annual, purchased: "2025-01-10T00:00:00Z", expires: "2026-01-10T00:00:00Z"),
    ], now: "2025-01-11T00:00:00Z", expected: status(.subscribed, F.annual, expires: "2026-01-10T00:00:00Z", renew: true),
       nextTransition: "2026-01-10T00:00:00Z"),
    EngineCase(name: "highest level (lowest groupNumber) wins within the group", lines: [
        F.transaction(id: "a1", product: F.annual, purchased: "2024-03-01T00:00:00Z", expires: "2025-03-01T00:00:00Z",
                      ["inAppOwnershipType": "FAMILY_SHARED"]),
        F.transaction(id: "m2", purchased: "2025-02-20T00:00:00Z", expires: "2025-03-20T00:00:00Z"),
    ], now: "2025-02-25T00:00:00Z",
       expected: status(.subscribed, F.annual, expires: "2025-03-01T00:00:00Z", renew: true, ownership: .familyShared, alsoGranting: [F.monthly]),
       nextTransition: "2025-03-01T00:00:00Z"),
    EngineCase(name: "lower level takes over when the higher one lapses", lines: [
        F.transaction(id: "a1", product: F.annual, purchased: "2024-03-01T00:00:00Z", expires: "2025-03-01T00:00:00Z"),
        F.transaction(id: "m2", purchased: "2025-02-20T00:00:00Z", expires: "2025-03-20T00:00:00Z"),
    ], now: "2025-03-02T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-03-20T00:00:00Z", renew: true),
       nextTransition: "2025-03-20T00:00:00Z"),
    EngineCase(name: "pending downgrade changes nothing until renewal", lines: [
        F.transaction(id: "a1", product: F.annual, purchased: "2025-01-01T00:00:00Z", expires: "2026-01-01T00:00:00Z"),
        F.renewal(original: "a1", signed: "2025-06-01T00:00:00Z", ["autoRenewProductId": .string(F.monthly), "productId": .string(F.annual)]),
    ], now: "2025-06-02T00:00:00Z", expected: status(.subscribed, F.annual, expires: "2026-01-01T00:00:00Z", renew: true),
       nextTransition: "2026-01-01T00:00:00Z"),
    EngineCase(name: "downgrade takes effect with the renewal transaction", lines: [
        F.transaction(id: "a1", original: "a1", product: F.annual, purchased: "2025-01-01T00:00:00Z", expires: "2026-01-01T00:00:00Z"),
        F.transaction(id: "a2", original: "a1", product: F.monthly, purchased: "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z"),
    ], now: "2026-01-02T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2026-02-01T00:00:00Z", renew: true),
       nextTransition: "2026-02-01T00:00:00Z"),
    EngineCase(name: "grace period is entitled until the grace end", lines: [
        monthlyJan,
        F.renewal(original: "m1", signed: "2025-02-01T00:00:00Z", [
            "isInBillingRetryPeriod": true, "gracePeriodExpiresDate": .double(F.ms("2025-02-17T00:00:00Z")), "expirationIntent": .int(2),
        ]),
    ], now: "2025-02-05T00:00:00Z", expected: status(.inGracePeriod, F.monthly, expires: "2025-02-17T00:00:00Z"),
       nextTransition: "2025-02-17T00:00:00Z"),
    EngineCase(name: "grace period without the retry flag", lines: [
        monthlyJan,
        F.renewal(original: "m1", signed: "2025-02-01T00:00:00Z", ["gracePeriodExpiresDate": .double(F.ms("2025-02-17T00:00:00Z"))]),
    ], now: "2025-02-05T00:00:00Z", expected: status(.inGracePeriod, F.monthly, expires: "2025-02-17T00:00:00Z"),
       nextTransition: "2025-02-17T00:00:00Z"),
    EngineCase(name: "billing retry without grace is not entitled", lines: [
        monthlyJan,
        F.renewal(original: "m1", signed: "2025-02-01T00:00:00Z", ["isInBillingRetryPeriod": true]),
    ], now: "2025-02-05T00:00:00Z", expected: status(.inBillingRetryPeriod, F.monthly)),
    EngineCase(name: "billing retry after the grace end", lines: [
        monthlyJan,
        F.renewal(original: "m1", signed: "2025-02-01T00:00:00Z", [
            "isInBillingRetryPeriod": true, "gracePeriodExpiresDate": .double(F.ms("2025-02-17T00:00:00Z")),
        ]),
    ], now: "2025-02-17T00:00:00Z", expected: status(.inBillingRetryPeriod, F.monthly)),
    EngineCase(name: "subscribed: willRenew true until expiry, transition to grace is the expiry", lines: [
        monthlyJan,
        F.renewal(original: "m1", signed: "2025-01-02T00:00:00Z", ["gracePeriodExpiresDate": .double(F.ms("2025-02-17T00:00:00Z"))]),
    ], now: "2025-01-20T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "non-consumable dominates a subscription", lines: [monthlyJan, lifetime], now: "2025-01-10T00:00:00Z",
               expected: status(.purchased, F.lifetime, alsoGranting: [F.monthly])),
    EngineCase(name: "refunded lifetime falls back to the subscription", lines: [
        monthlyJan, lifetime,
        F.transaction(id: "L1", product: F.lifetime, purchased: "2024-06-01T00:00:00Z", signed: "2025-01-09T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-01-09T00:00:00Z"))]),
    ], now: "2025-01-10T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "refunded lifetime and lapsed subscription: the later end is reported", lines: [
        monthlyJan, lifetime,
        F.transaction(id: "L1", product: F.lifetime, purchased: "2024-06-01T00:00:00Z", signed: "2025-03-01T00:00:00Z",
                      ["revocationDate": .double(F.ms("2025-03-01T00:00:00Z"))]),
    ], now: "2025-03-02T00:00:00Z", expected: status(.revoked, F.lifetime)),
    EngineCase(name: "introductory pay-as-you-go is intro", lines: [
        F.transaction(id: "i", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z",
                      ["offerType": .int(1), "offerDiscountType": "PAY_AS_YOU_GO"]),
    ], now: "2025-01-02T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", period: .intro, renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "promotional offer is promotional", lines: [
        F.transaction(id: "p", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z",
                      ["offerType": .int(2), "offerIdentifier": "winter", "offerDiscountType": "PAY_UP_FRONT"]),
    ], now: "2025-01-02T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z", period: .promotional, renew: true),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "autoRenewStatus 0: will not renew", lines: [
        monthlyJan, F.renewal(original: "m1", signed: "2025-01-03T00:00:00Z", ["autoRenewStatus": .int(0), "expirationIntent": .int(1)]),
    ], now: "2025-01-10T00:00:00Z", expected: status(.subscribed, F.monthly, expires: "2025-02-01T00:00:00Z"),
       nextTransition: "2025-02-01T00:00:00Z"),
    EngineCase(name: "family sharing is reported", lines: [
        F.transaction(id: "L2", product: F.lifetime, purchased: "2024-06-01T00:00:00Z", ["inAppOwnershipType": "FAMILY_SHARED"]),
    ], now: "2025-01-10T00:00:00Z", expected: status(.purchased, F.lifetime, ownership: .familyShared)),
    EngineCase(name: "own purchase preferred over family-shared when equal", lines: [
        F.transaction(id: "L2", product: F.lifetime, purchased: "2024-06-01T00:00:00Z", ["inAppOwnershipType": "FAMILY_SHARED"]),
        lifetime,
    ], now: "2025-01-10T00:00:00Z", expected: status(.purchased, F.lifetime)),
    EngineCase(name: "clock wound back: signedDate is the floor", lines: [
        monthlyJan, F.renewal(original: "m1", signed: "2025-02-02T00:00:00Z", ["autoRenewStatus": .int(0)]),
    ], now: "2025-01-10T00:00:00Z", expected: status(.expired, F.monthly)),
    EngineCase(name: "clock wound back: the caller's floor", lines: [monthlyJan], now: "2025-01-10T00:00:00Z", floor: "2025-02-01T00:00:00Z",
               expected: status(.expired, F.monthly)),
    EngineCase(name: "products outside every entitlement are ignored", lines: [
        F.transaction(id: "x", product: "com.irenews.geko.tip", purchased: "2025-01-01T00:00:00Z"),
    ], now: "2025-01-10T00:00:00Z", expected: .notPurchased),
]

@Suite(.timeLimit(.minutes(1))) struct EngineTests {
    @Test(arguments: engineCases)
    func plusEntitlement(_ row: EngineCase) throws {
        let engine = EntitlementEngine(catalog: try Fixtures.catalog())
        let facts = FactStore(try Fixtures.events(row.lines))
        let result = engine.evaluate(facts, now: Fixtures.date(row.now), floor: row.floor.map(Fixtures.date))
        #expect(result.entitlements == ["plus": row.expected])
        #expect(result.nextTransition.map(ISO8601.string(from:)) == row.nextTransition.map { ISO8601.string(from: Fixtures.date($0)) })
        #expect(result.effectiveNow >= Fixtures.date(row.now))
    }

    @Test func sampleTrialIsActiveUntilItsExpiryInTheSnapshot() throws {
        let engine = EntitlementEngine(catalog: try Fixtures.catalog())
        let facts = FactStore(try Fixtures.events([Fixtures.xcodeSample]))
        let result = engine.evaluate(facts, now: Fixtures.date("2023-10-19T12:00:00Z"))
        let snapshot = result.snapshot(generation: 7)
        #expect(snapshot.generation == 7)
        #expect(snapshot.issuedAt == Fixtures.date("2023-10-19T12:00:00Z"))
        #expect(snapshot.nextTransition == sampleExpiry)
        let plus = snapshot.status(of: "plus")
        #expect(plus.periodType == .trial)
        #expect(plus.isActive(at: sampleExpiry.addingTimeInterval(-0.001)))
        #expect(!plus.isActive(at: sampleExpiry))
    }

    @Test func effectiveNowIsTheLargestOfClockSignedDateAndFloor() throws {
        let engine = EntitlementEngine(catalog: try Fixtures.catalog())
        let facts = FactStore(try Fixtures.events([Fixtures.xcodeSample]))
        let signed = Date(timeIntervalSince1970: 1697679936056.4709 / 1000)
        #expect(engine.evaluate(facts, now: Fixtures.date("2020-01-01T00:00:00Z")).effectiveNow == signed)
        #expect(engine.evaluate(facts, now: Fixtures.date("2024-01-01T00:00:00Z")).effectiveNow == Fixtures.date("2024-01-01T00:00:00Z"))
        let floor = Fixtures.date("2025-01-01T00:00:00Z")
        #expect(engine.evaluate(facts, now: Fixtures.date("2024-01-01T00:00:00Z"), floor: floor).effectiveNow == floor)
    }

    @Test func everyCatalogEntitlementIsReported() throws {
        let catalog = try Catalog(
            catalogJSON: Array(CatalogTests.catalog.replacingOccurrences(of: "\"entitlements\":{", with: "\"entitlements\":{\"extra\":{\"products\":[]},").utf8),
            storeKitJSON: Array(CatalogTests.storeKit.utf8), catalogPath: "Catalog.json")
        let result = EntitlementEngine(catalog: catalog).evaluate(FactStore(), now: Fixtures.date("2025-01-01T00:00:00Z"))
        #expect(result.entitlements == ["pro": .notPurchased, "extra": .notPurchased])
        #expect(result.nextTransition == nil)
    }

    @Test func nonRenewingLastsTheCatalogDurationFromPurchase() throws {
        let catalog = try Catalog(
            catalogJSON: Array(CatalogTests.catalog.replacingOccurrences(of: "Production", with: "Xcode").replacingOccurrences(of: "com.example.app", with: Fixtures.bundleId).utf8),
            storeKitJSON: Array(CatalogTests.storeKit.utf8), catalogPath: "Catalog.json")
        let engine = EntitlementEngine(catalog: catalog)
        let facts = FactStore(try Fixtures.events([
            Fixtures.transaction(id: "s", product: "season", purchased: "2024-11-30T10:00:00Z", ["type": "Non-Renewing Subscription"]),
        ]))
        let end = Fixtures.date("2025-02-28T10:00:00Z") // November 30 + 3 months, clamped to February's last day
        let during = engine.evaluate(facts, now: Fixtures.date("2025-02-28T09:59:59Z"))
        #expect(during.entitlements["pro"] == EntitlementStatus(active: true, state: .purchased, expiresAt: end, productId: "season"))
        #expect(during.nextTransition == end)
        let after = engine.evaluate(facts, now: end)
        #expect(after.entitlements["pro"] == EntitlementStatus(active: false, state: .expired, productId: "season"))
        #expect(after.nextTransition == nil)
    }

    @Test func consumablesGrantNothing() throws {
        let catalog = try Catalog(
            catalogJSON: Array(CatalogTests.catalog.replacingOccurrences(of: "\"forever\",", with: "\"forever\",\"coins\",").utf8),
            storeKitJSON: Array(CatalogTests.storeKit.utf8), catalogPath: "Catalog.json")
        let facts = FactStore(try Fixtures.events([
            Fixtures.transaction(id: "c", product: "coins", purchased: "2025-01-01T00:00:00Z", ["type": "Consumable"]),
        ]))
        let result = EntitlementEngine(catalog: catalog).evaluate(facts, now: Fixtures.date("2025-01-02T00:00:00Z"))
        #expect(result.entitlements["pro"] == .notPurchased)
    }

    @Test func introductoryOfferEligibilityPerGroup() throws {
        var catalog = try Fixtures.catalog()
        let paid = FactStore(try Fixtures.events([monthlyJan]))
        let trial = FactStore(try Fixtures.events([Fixtures.xcodeSample]))
        #expect(EntitlementEngine(catalog: catalog).introductoryOfferEligibility(FactStore()) == ["21400001": true])
        #expect(EntitlementEngine(catalog: catalog).introductoryOfferEligibility(paid) == ["21400001": false])
        #expect(EntitlementEngine(catalog: catalog).evaluate(trial, now: Fixtures.date("2025-01-01T00:00:00Z")).introductoryOfferEligibility
            == ["21400001": false])
        catalog.introductoryOfferPolicy = .oncePerGroup
        #expect(EntitlementEngine(catalog: catalog).introductoryOfferEligibility(paid) == ["21400001": true])
        #expect(EntitlementEngine(catalog: catalog).introductoryOfferEligibility(trial) == ["21400001": false])
        #expect(EntitlementEngine(catalog: catalog).introductoryOfferEligibility(FactStore(try Fixtures.events([lifetime]))) == ["21400001": true])
    }
}
