import EntitlementDefaults
import Foundation
import Testing
@testable import Entitlements
@testable import StoreKitFormats

/// An introductory offer whose transaction carries `offerType` 1 but no `offerDiscountType`
/// (payloads signed before 2024, Xcode's) takes its kind from the `.storekit` file's
/// `paymentMode`: only `free` is a trial.
@Suite(.timeLimit(.minutes(1))) struct IntroductoryOfferPeriodTests {
    /// The sample catalog with the monthly plan's introductory offer changed to `paymentMode`,
    /// loaded from a temporary copy of `Shared/` so the `.storekit` parser reads it.
    private static func catalog(monthlyPaymentMode paymentMode: String) throws -> Catalog {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intro-offer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = URL(fileURLWithPath: Fixtures.packageRoot).appendingPathComponent("Shared")
        let storeKit = try String(contentsOf: shared.appendingPathComponent("Geko.storekit"), encoding: .utf8)
        let edited = storeKit.replacingOccurrences(of: "\"paymentMode\" : \"free\"", with: "\"paymentMode\" : \"\(paymentMode)\"")
        #expect(edited != storeKit || paymentMode == "free", "the sample .storekit file no longer has a free introductory offer")
        try Data(edited.utf8).write(to: directory.appendingPathComponent("Geko.storekit"))
        try FileManager.default.copyItem(at: shared.appendingPathComponent("Catalog.json"), to: directory.appendingPathComponent("Catalog.json"))
        return try Catalog.load(path: directory.appendingPathComponent("Catalog.json").path)
    }

    private static func period(_ catalog: Catalog, _ fields: [String: JSONValue]) throws -> PeriodType {
        let line = Fixtures.transaction(id: "t", purchased: "2025-01-01T00:00:00Z", expires: "2025-01-08T00:00:00Z", fields)
        let result = EntitlementEngine(catalog: catalog).evaluate(FactStore(try Fixtures.events([line])), now: Fixtures.date("2025-01-02T00:00:00Z"))
        return result.entitlements["plus"]?.periodType ?? .normal
    }

    @Test("offerType 1 without a discount type follows the .storekit paymentMode", arguments: [
        ("free", PeriodType.trial), ("payAsYouGo", .intro), ("payUpFront", .intro),
    ])
    func catalogDecides(paymentMode: String, expected: PeriodType) throws {
        let catalog = try Self.catalog(monthlyPaymentMode: paymentMode)
        #expect(catalog.products[Fixtures.monthly]?.introductoryOffer?.paymentMode == paymentMode)
        #expect(try Self.period(catalog, ["offerType": .int(1)]) == expected)
    }

    @Test("A discount type in the transaction wins over the catalog")
    func transactionDecides() throws {
        let payAsYouGo = try Self.catalog(monthlyPaymentMode: "payAsYouGo")
        #expect(try Self.period(payAsYouGo, ["offerType": .int(1), "offerDiscountType": "FREE_TRIAL"]) == .trial)
        let free = try Self.catalog(monthlyPaymentMode: "free")
        #expect(try Self.period(free, ["offerType": .int(1), "offerDiscountType": "PAY_UP_FRONT"]) == .intro)
        #expect(try Self.period(free, ["offerType": .int(2)]) == .promotional)
    }

    @Test("A product the catalog gives no introductory offer still reads offerType 1 alone as a trial")
    func noCatalogOffer() throws {
        var catalog = try Fixtures.catalog()
        catalog.products[Fixtures.monthly]?.introductoryOffer = nil
        #expect(try Self.period(catalog, ["offerType": .int(1)]) == .trial)
    }
}
