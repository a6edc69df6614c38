import EntitlementDefaults
import Foundation
import Testing
@testable import Entitlements
@testable import StoreKitFormats

@Suite(.timeLimit(.minutes(1))) struct CatalogTests {
    @Test func loadsTheSampleCatalog() throws {
        let catalog = try Fixtures.catalog()
        #expect(catalog.bundleId == "com.irenews.geko")
        #expect(catalog.environment == .xcode)
        #expect(catalog.storeKitPath == "Geko.storekit")
        #expect(catalog.entitlements == ["plus": [Fixtures.monthly, Fixtures.annual, Fixtures.lifetime]])
        #expect(catalog.entitlementsByProduct[Fixtures.annual] == ["plus"])
        #expect(catalog.products[Fixtures.annual]?.kind == .autoRenewable(groupId: "21400001", level: 1))
        #expect(catalog.products[Fixtures.monthly]?.kind == .autoRenewable(groupId: "21400001", level: 2))
        #expect(catalog.products[Fixtures.monthly]?.subscriptionPeriod == ISO8601Duration(months: 1))
        #expect(catalog.products[Fixtures.monthly]?.introductoryOffer == IntroductoryOffer(paymentMode: "free", period: ISO8601Duration(weeks: 1)))
        #expect(catalog.products[Fixtures.monthly]?.introductoryOffer?.isFreeTrial == true)
        #expect(catalog.products[Fixtures.annual]?.introductoryOffer == nil)
        #expect(catalog.products[Fixtures.lifetime]?.kind == .nonConsumable)
        #expect(catalog.products[Fixtures.lifetime]?.familyShareable == true)
        let habits = try #require(catalog.featureGate.rules["habits"])
        #expect(habits.entitlement == "plus")
        #expect(habits.freeCount == 3)
        #expect(catalog.featureGate.rules["history"]?.freeDays == 30)
        #expect(catalog.featureGate.rules["widgets"]?.paywall.title == "Widgets need Geko Plus")
        #expect(Set(catalog.featureGate.rules.keys) == [
            "habits", "widgets", "watchApp", "history", "collections", "groups", "cards", "tieredVoting",
            "advancedFilters", "customTags", "aiCoach", "advancedAnalytics", "sync", "quickTimer", "articles",
        ])
    }

    @Test func reverseMapFollowsEntitlements() throws {
        var catalog = try Fixtures.catalog()
        catalog.entitlements["lifetimeOnly"] = [Fixtures.lifetime]
        #expect(catalog.entitlementsByProduct[Fixtures.lifetime] == ["plus", "lifetimeOnly"])
    }

    @Test func missingFileNamesThePath() {
        let path = Fixtures.packageRoot + "/Shared/NoSuchCatalog.json"
        #expect(throws: CatalogError(file: path, keyPath: "", problem: "no such file")) { try Catalog.load(path: path) }
    }

    @Test func loadsAStoreKitFileRelativeToTheCatalog() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("store"), withIntermediateDirectories: true)
        try Data(Self.storeKit.utf8).write(to: directory.appendingPathComponent("store/Test.storekit"))
        let catalogText = Self.catalog.replacingOccurrences(of: "\"Test.storekit\"", with: "\"store/Test.storekit\"")
        try Data(catalogText.utf8).write(to: directory.appendingPathComponent("Catalog.json"))
        let catalog = try Catalog.load(path: directory.appendingPathComponent("Catalog.json").path)
        #expect(catalog.products.count == 4)
        try Data(catalogText.replacingOccurrences(of: "store/Test.storekit", with: "store/Other.storekit").utf8)
            .write(to: directory.appendingPathComponent("Catalog.json"))
        let expected = CatalogError(file: directory.path + "/store/Other.storekit", keyPath: "", problem: "no such file")
        #expect(throws: expected) { try Catalog.load(path: directory.appendingPathComponent("Catalog.json").path) }
    }

    /// A `.storekit` file in the older (version 2) shape with a non-renewing subscription and a
    /// consumable, plus unknown keys that must be ignored.
    static let storeKit = """
        {"identifier":"X","version":{"major":2,"minor":0},"futureKey":{"a":[1,2]},
         "products":[{"productID":"coins","type":"Consumable","referenceName":"Coins","displayPrice":"0.99"},
                     {"productID":"forever","type":"NonConsumable","familyShareable":false}],
         "nonRenewingSubscriptions":[{"productID":"season","type":"NonRenewingSubscription","displayPrice":"4.99"}],
         "subscriptionGroups":[{"id":"G1","name":"Pro","subscriptions":[
           {"productID":"pro.month","groupNumber":1,"recurringSubscriptionPeriod":"P1M","introductoryOffer":null,"subscriptionGroupID":"G1","type":"RecurringSubscription"}]}]}
        """

    static let catalog = """
        {"storekit":"Test.storekit","bundleId":"com.example.app","environment":"Production",
         "durations":{"season":"P3M"},
         "entitlements":{"pro":{"products":["pro.month","forever","season"]}},
         "features":{"export":{},"sync":{"entitlement":"pro","paywall":{"title":"Sync","message":"Needs Pro","callToAction":"Go"}}}}
        """

    @Test func decodesOlderStoreKitShapesAndDurations() throws {
        let catalog = try Catalog(catalogJSON: Array(Self.catalog.utf8), storeKitJSON: Array(Self.storeKit.utf8), catalogPath: "Catalog.json")
        #expect(catalog.environment == .production)
        #expect(catalog.products["coins"]?.kind == .consumable)
        #expect(catalog.products["season"]?.kind == .nonRenewing(duration: ISO8601Duration(months: 3)))
        #expect(catalog.products["pro.month"]?.kind == .autoRenewable(groupId: "G1", level: 1))
        #expect(catalog.featureGate.rules["export"]?.entitlement == nil)
        #expect(catalog.featureGate.rules["sync"]?.paywall == PaywallCopy(title: "Sync", message: "Needs Pro", callToAction: "Go"))
    }

    struct BrokenCatalog: Sendable, CustomStringConvertible {
        var name: String
        var catalog: String
        var storeKit: String
        var message: String
        var description: String { name }
    }

    static let broken: [BrokenCatalog] = [
        .init(name: "catalog not JSON", catalog: "{\"storekit\":", storeKit: storeKit,
              message: "Catalog.json: invalid JSON at byte 12: unexpected end of input"),
        .init(name: "catalog not an object", catalog: "[1]", storeKit: storeKit, message: "Catalog.json: not a JSON object"),
        .init(name: "missing storekit", catalog: "{\"bundleId\":\"a\"}", storeKit: storeKit, message: "Catalog.json: missing storekit"),
        .init(name: "missing bundleId", catalog: catalog.replacingOccurrences(of: "\"bundleId\":\"com.example.app\",", with: ""), storeKit: storeKit,
              message: "Catalog.json: missing bundleId"),
        .init(name: "unknown environment", catalog: catalog.replacingOccurrences(of: "\"Production\"", with: "\"Staging\""), storeKit: storeKit,
              message: "Catalog.json: environment: 'Staging' is not Production, Sandbox, Xcode or LocalTesting"),
        .init(name: "product id not a string", catalog: catalog.replacingOccurrences(of: "\"forever\",", with: "7,"), storeKit: storeKit,
              message: "Catalog.json: entitlements.pro.products[1]: not a string"),
        .init(name: "unknown product", catalog: catalog.replacingOccurrences(of: "\"forever\",", with: "\"nope\","), storeKit: storeKit,
              message: "Catalog.json: entitlements.pro.products[1]: product 'nope' is not in Test.storekit"),
        .init(name: "products missing", catalog: catalog.replacingOccurrences(of: "\"pro\":{\"products\"", with: "\"pro\":{\"items\""), storeKit: storeKit,
              message: "Catalog.json: entitlements.pro: missing products"),
        .init(name: "non-renewing without duration", catalog: catalog.replacingOccurrences(of: "\"durations\":{\"season\":\"P3M\"},", with: ""),
              storeKit: storeKit,
              message: "Catalog.json: entitlements.pro.products[2]: non-renewing subscription 'season' has no entry in durations"),
        .init(name: "bad duration", catalog: catalog.replacingOccurrences(of: "P3M", with: "3 months"), storeKit: storeKit,
              message: "Catalog.json: durations.season: not an ISO 8601 duration"),
        .init(name: "duration for a subscription", catalog: catalog.replacingOccurrences(of: "\"season\":\"P3M\"", with: "\"season\":\"P3M\",\"pro.month\":\"P1M\""),
              storeKit: storeKit, message: "Catalog.json: durations.pro.month: product 'pro.month' is not a non-renewing subscription"),
        .init(name: "feature names unknown entitlement", catalog: catalog.replacingOccurrences(of: "\"entitlement\":\"pro\"", with: "\"entitlement\":\"gold\""),
              storeKit: storeKit, message: "Catalog.json: features.sync.entitlement: entitlement 'gold' is not in entitlements"),
        .init(name: "paywall without title", catalog: catalog.replacingOccurrences(of: "\"title\":\"Sync\",", with: ""), storeKit: storeKit,
              message: "Catalog.json: features.sync.paywall: missing title"),
        .init(name: "storekit not JSON", catalog: catalog, storeKit: "nope", message: "Test.storekit: invalid JSON at byte 0: unexpected character"),
        .init(name: "storekit groupNumber not an integer", catalog: catalog,
              storeKit: storeKit.replacingOccurrences(of: "\"groupNumber\":1", with: "\"groupNumber\":\"1\""),
              message: "Test.storekit: subscriptionGroups[0].subscriptions[0].groupNumber: not an integer"),
        .init(name: "storekit product type unknown", catalog: catalog,
              storeKit: storeKit.replacingOccurrences(of: "\"type\":\"Consumable\"", with: "\"type\":\"Gadget\""),
              message: "Test.storekit: products[0].type: unknown product type 'Gadget'"),
        .init(name: "storekit duplicate product", catalog: catalog,
              storeKit: storeKit.replacingOccurrences(of: "\"productID\":\"coins\"", with: "\"productID\":\"forever\""),
              message: "Test.storekit: products[1]: duplicate productID 'forever'"),
        .init(name: "storekit subscriptions missing", catalog: catalog,
              storeKit: storeKit.replacingOccurrences(of: "\"subscriptions\":", with: "\"subs\":"),
              message: "Test.storekit: subscriptionGroups[0]: missing subscriptions"),
    ]

    @Test(arguments: broken)
    func malformedCatalogIsOneLineNamingFileAndKeyPath(_ row: BrokenCatalog) {
        do {
            _ = try Catalog(catalogJSON: Array(row.catalog.utf8), storeKitJSON: Array(row.storeKit.utf8), catalogPath: "Catalog.json")
            Issue.record("\(row.name): decoded without error")
        } catch {
            #expect(error.description == row.message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func storeKitFileIsNamedRelativeToTheCatalog() throws {
        for (catalogPath, storeKitPath) in [("/etc/app/Catalog.json", "/etc/app/Test.storekit"), ("Catalog.json", "Test.storekit")] {
            var asked: [String] = []
            _ = try Catalog.load(path: catalogPath) { (file) throws(CatalogError) in
                asked.append(file)
                return Array((file == catalogPath ? Self.catalog : Self.storeKit).utf8)
            }
            #expect(asked == [catalogPath, storeKitPath])
        }
    }
}
