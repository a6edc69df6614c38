import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation
import ServiceRuntime
import SharedDefaults
import Testing
import TestSupport

/// The paywall half of the contract, driven through the built tools against a catalog and a
/// `.storekit` file of an app the package does not ship (a meditation app): copy per reason and
/// the introductory offer, `products`, `features`, `check --count --adding`, the cooldown, and
/// the analytics log with its report and the daemon's `upgradedFromPaywall`.
@Suite(.timeLimit(.minutes(2))) struct PaywallCommandTests {
    static let now = "2026-11-22T10:00:00Z"
    static let issued = ISO8601.date(from: now) ?? .distantPast
    static let group = "group.app.calm"
    static let free = EntitlementSnapshot(generation: 1, issuedAt: issued, nextTransition: nil, entitlements: ["premium": .notPurchased])
    static let lapsed = EntitlementSnapshot(
        generation: 1, issuedAt: issued, nextTransition: nil,
        entitlements: ["premium": EntitlementStatus(active: false, state: .expired, expiresAt: issued - 86_400, productId: "app.calm.monthly")],
        introOfferIneligibleGroups: ["900"])
    static let premium = EntitlementSnapshot(
        generation: 1, issuedAt: issued, nextTransition: nil,
        entitlements: ["premium": EntitlementStatus(active: true, state: .subscribed, expiresAt: issued + 86_400 * 300, productId: "app.calm.yearly", willRenew: true)],
        introOfferIneligibleGroups: ["900"])

    static let storeKit = #"""
        {"identifier": "CALM", "nonRenewingSubscriptions": [],
         "products": [
          {"displayPrice": "49.99", "familyShareable": false, "internalID": "1", "productID": "app.calm.forever",
           "referenceName": "Forever", "type": "NonConsumable",
           "localizations": [{"description": "Everything, forever.", "displayName": "Calm Forever", "locale": "en_US"},
                             {"description": "Alles, für immer.", "displayName": "Calm für immer", "locale": "de_DE"}]},
          {"displayPrice": "0.99", "internalID": "2", "productID": "app.calm.tip", "referenceName": "Tip", "type": "Consumable",
           "localizations": [{"description": "Say thanks.", "displayName": "Tip", "locale": "en_US"}]}],
         "subscriptionGroups": [{"id": "900", "name": "Calm Premium", "localizations": [], "subscriptions": [
          {"displayPrice": "5.99", "groupNumber": 2, "internalID": "3", "productID": "app.calm.monthly",
           "introductoryOffer": {"internalID": "4", "paymentMode": "free", "subscriptionPeriod": "P1W", "numberOfPeriods": 1},
           "recurringSubscriptionPeriod": "P1M", "referenceName": "Monthly", "subscriptionGroupID": "900", "type": "RecurringSubscription",
           "localizations": [{"description": "Billed monthly.", "displayName": "Calm Monthly", "locale": "en_US"},
                             {"description": "Monatlich.", "displayName": "Calm monatlich", "locale": "de_DE"}]},
          {"displayPrice": "39.99", "groupNumber": 1, "internalID": "5", "productID": "app.calm.yearly",
           "recurringSubscriptionPeriod": "P1Y", "referenceName": "Yearly", "subscriptionGroupID": "900", "type": "RecurringSubscription",
           "localizations": [{"description": "Billed yearly.", "displayName": "Calm Yearly", "locale": "en_US"}]}]}],
         "version": {"major": 4, "minor": 0}}
        """#

    static let catalog = #"""
        {"storekit": "Calm.storekit", "bundleId": "app.calm", "environment": "Xcode",
         "paywallCooldown": "PT30M", "attributionWindow": "PT2H",
         "entitlements": {"premium": {"products": ["app.calm.yearly", "app.calm.monthly", "app.calm.forever"]}},
         "features": {
          "sessions": {"entitlement": "premium", "freeLimit": {"count": 5},
           "paywall": {"title": "More sessions", "message": "Premium has every session.", "callToAction": "Go Premium",
                       "cooldown": "PT10M",
                       "byReason": {"limitReached": {"title": "Five sessions used"},
                                    "expired": {"title": "Welcome back", "callToAction": "Resubscribe"},
                                    "introOffer": {"callToAction": "Try a week free"}}}},
          "soundscapes": {"entitlement": "premium",
           "paywall": {"title": "Soundscapes are Premium", "message": "Relax to rain.", "callToAction": "Go Premium",
                       "byReason": {"expired": {"title": "Welcome back"}, "introOffer": {"callToAction": "Try a week free"}}}},
          "widgets": {"entitlement": "premium",
           "paywall": {"title": "Widgets are Premium", "message": "Calm on your Home Screen.", "callToAction": "Unlock widgets",
                       "byReason": {"introOffer": {"callToAction": "Start your free week"}}}},
          "breathing": {}}}
        """#

    /// A container and the catalog above in a temporary directory.
    struct App {
        let root: String
        var container: String { root + "/container" }
        var catalogPath: String { root + "/Catalog.json" }
        var common: [String] { ["--container", container, "--group", PaywallCommandTests.group, "--catalog", catalogPath] }
        var log: PaywallAnalyticsLog { PaywallAnalyticsLog(container: container) }

        func publish(_ snapshot: EntitlementSnapshot) throws {
            try SharedDefaults(suiteName: PaywallCommandTests.group, container: container).publish(snapshot)
        }

        func run(_ arguments: [String], now: String? = PaywallCommandTests.now) async throws -> BuiltTools.Result {
            try await BuiltTools.run("entitlementctl", arguments + (now.map { ["--now", $0] } ?? []) + common)
        }

        /// `entitlementctl ARGS --format json`, parsed.
        func json(_ arguments: [String], now: String? = PaywallCommandTests.now) async throws -> (status: Int32, object: [String: Any]) {
            let result = try await run(arguments + ["--format", "json"], now: now)
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            return (result.status, try #require(object, "\(arguments): \(result.standardOutput) \(result.standardError)"))
        }
    }

    static func with(_ name: String = #function, _ body: (App) async throws -> Void) async throws {
        let root = NSTemporaryDirectory() + "paywall-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data(storeKit.utf8).write(to: URL(fileURLWithPath: root + "/Calm.storekit"))
        try Data(catalog.utf8).write(to: URL(fileURLWithPath: root + "/Catalog.json"))
        try await body(App(root: root))
    }

    @Test func copyFollowsTheReasonAndTheIntroductoryOffer() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            let never = try await app.json(["check", "soundscapes"])
            #expect(never.status == 1)
            #expect(never.object["reason"] as? String == "notEntitled")
            #expect(never.object["introOfferEligible"] as? Bool == true)
            #expect(never.object["title"] as? String == "Soundscapes are Premium")
            #expect(never.object["callToAction"] as? String == "Try a week free")
            // The intro offer's copy replaces notEntitled's and expired's only.
            let full = try await app.json(["check", "sessions", "--count", "5"])
            #expect(full.object["reason"] as? String == "limitReached")
            #expect(full.object["title"] as? String == "Five sessions used")
            #expect(full.object["callToAction"] as? String == "Go Premium")
            #expect(full.object["introOfferEligible"] as? Bool == true)
            let widget = try await BuiltTools.run(
                "widget-renderer", ["--format", "json", "--family", "systemSmall", "--now", Self.now] + app.common)
            #expect(widget.standardOutput.contains(#""callToAction":"Start your free week""#), "\(widget.standardOutput)")

            // After the trial ended: the expired copy, no offer.
            try app.publish(EntitlementSnapshot(
                generation: 2, issuedAt: Self.issued, nextTransition: nil, entitlements: Self.lapsed.entitlements,
                introOfferIneligibleGroups: Self.lapsed.introOfferIneligibleGroups))
            let lapsed = try await app.json(["check", "soundscapes"])
            #expect(lapsed.object["reason"] as? String == "expired")
            #expect(lapsed.object["introOfferEligible"] as? Bool == false)
            #expect(lapsed.object["title"] as? String == "Welcome back")
            #expect(lapsed.object["callToAction"] as? String == "Go Premium")
            let lapsedSessions = try await app.json(["check", "sessions"])
            #expect(lapsedSessions.object["title"] as? String == "Five sessions used")
            let lapsedWidget = try await BuiltTools.run(
                "widget-renderer", ["--format", "json", "--family", "systemSmall", "--now", Self.now] + app.common)
            #expect(lapsedWidget.standardOutput.contains(#""callToAction":"Unlock widgets""#), "\(lapsedWidget.standardOutput)")

            // Unlocked answers carry it too.
            let breathing = try await app.json(["check", "breathing"])
            #expect(breathing.status == 0 && breathing.object["introOfferEligible"] as? Bool == false)
        }
    }

    @Test func productsInCatalogOrderLocalizedAndFiltered() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            let all = try await app.json(["products"])
            let products = try #require(all.object["products"] as? [[String: Any]])
            #expect(products.map { $0["productId"] as? String } == ["app.calm.yearly", "app.calm.monthly", "app.calm.forever", "app.calm.tip"])
            let monthly = products[1]
            #expect(monthly["type"] as? String == "autoRenewable")
            #expect(monthly["displayName"] as? String == "Calm Monthly")
            #expect(monthly["description"] as? String == "Billed monthly.")
            #expect(monthly["displayPrice"] as? String == "5.99")
            #expect(monthly["period"] as? String == "P1M")
            #expect(monthly["subscriptionGroup"] as? String == "900")
            #expect(monthly["level"] as? Int == 2)
            let offer = try #require(monthly["introOffer"] as? [String: Any])
            #expect(offer["paymentMode"] as? String == "freeTrial" && offer["period"] as? String == "P1W" && offer["periodCount"] as? Int == 1)
            #expect(monthly["introOfferEligible"] as? Bool == true && monthly["owned"] as? Bool == false)
            #expect(products[0]["introOffer"] is NSNull && products[0]["introOfferEligible"] as? Bool == false)
            #expect(products[2]["type"] as? String == "nonConsumable" && products[2]["period"] is NSNull && products[2]["level"] is NSNull)
            #expect(products[3]["type"] as? String == "consumable")
            #expect(Set(products.flatMap { $0.keys }) == [
                "productId", "type", "displayName", "description", "displayPrice", "period", "subscriptionGroup", "level",
                "introOffer", "introOfferEligible", "owned",
            ])

            let german = try #require(try await app.json(["products", "--locale", "de_DE", "--feature", "sessions"]).object["products"] as? [[String: Any]])
            #expect(german.map { $0["displayName"] as? String } == ["Calm Yearly", "Calm monatlich", "Calm für immer"])

            try app.publish(EntitlementSnapshot(generation: 2, issuedAt: Self.issued, nextTransition: nil, entitlements: Self.premium.entitlements,
                introOfferIneligibleGroups: Self.premium.introOfferIneligibleGroups))
            let owned = try #require(try await app.json(["products"]).object["products"] as? [[String: Any]])
            #expect(owned.map { $0["owned"] as? Bool } == [true, false, false, false])
            #expect(owned[1]["introOfferEligible"] as? Bool == false)
            #expect(try await app.run(["products", "--feature", "nope"]).status == 64)
        }
    }

    @Test func featuresIsEveryCheckInOneRead() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            let all = try await app.json(["features"])
            #expect(all.status == 0)
            let features = try #require(all.object["features"] as? [String: [String: Any]])
            #expect(features.keys.sorted() == ["breathing", "sessions", "soundscapes", "widgets"])
            for name in features.keys {
                let single = try await app.json(["check", name])
                #expect(NSDictionary(dictionary: single.object) == NSDictionary(dictionary: features[name] ?? [:]), "\(name)")
            }
        }
    }

    @Test func addingAsksWhetherKMoreFit() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            let fits = try await app.json(["check", "sessions", "--count", "3", "--adding", "2"])
            #expect(fits.status == 0)
            #expect(fits.object["count"] as? Int == 3 && fits.object["limit"] as? Int == 5 && fits.object["remaining"] as? Int == 2)
            let over = try await app.json(["check", "sessions", "--count", "3", "--adding", "3"])
            #expect(over.status == 1 && over.object["reason"] as? String == "limitReached")
            #expect(over.object["count"] as? Int == 3 && over.object["limit"] as? Int == 5 && over.object["remaining"] as? Int == 2)
            try app.publish(EntitlementSnapshot(generation: 2, issuedAt: Self.issued, nextTransition: nil, entitlements: Self.premium.entitlements,
                introOfferIneligibleGroups: Self.premium.introOfferIneligibleGroups))
            let unlimited = try await app.json(["check", "sessions", "--count", "300", "--adding", "50"])
            #expect(unlimited.status == 0 && unlimited.object["limit"] is NSNull && unlimited.object["remaining"] is NSNull)
            #expect(unlimited.object["count"] as? Int == 300)
        }
    }

    @Test func cooldownPresentsThePaywallOnce() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            let first = try await app.json(["check", "soundscapes", "--record"])
            let second = try await app.json(["check", "soundscapes", "--record"])
            #expect(first.status == 1 && second.status == 1)
            #expect(first.object["presentPaywall"] as? Bool == true && second.object["presentPaywall"] as? Bool == false)
            // Read-only checks say the same without recording.
            #expect(try await app.json(["check", "soundscapes"]).object["presentPaywall"] as? Bool == false)
            // The catalog's paywallCooldown (PT30M) ends.
            let later = try await app.json(["check", "soundscapes", "--record"], now: "2026-11-22T10:30:00Z")
            #expect(later.object["presentPaywall"] as? Bool == true)
            #expect(try app.log.events().filter { $0.kind == .paywallShown }.count == 2)

            // Five processes at once: one paywall (sessions' own cooldown, PT10M).
            let statuses = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<5 {
                    group.addTask { try await app.json(["check", "sessions", "--count", "5", "--record"]).object["presentPaywall"] as? Bool == true }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 }.count == 1)
            #expect(try app.log.events().filter { $0.feature == "sessions" }.count == 1)
        }
    }

    @Test func analyticsReportCountsEveryKind() async throws {
        try await Self.with { app in
            try app.publish(Self.free)
            #expect(try await app.run(["check", "breathing", "--record"]).status == 0)
            #expect(try await app.run(["check", "sessions", "--count", "1", "--record"]).status == 0)
            #expect(try await app.run(["check", "soundscapes", "--record"]).status == 1)
            #expect(try await app.run(["paywall", "dismissed", "soundscapes"]).status == 0)
            #expect(try await app.run(["paywall", "dismissed", "nope"]).status == 64)
            try app.publish(EntitlementSnapshot(generation: 2, issuedAt: Self.issued, nextTransition: nil, entitlements: Self.premium.entitlements,
                introOfferIneligibleGroups: Self.premium.introOfferIneligibleGroups))
            #expect(try await app.run(["check", "sessions", "--count", "40", "--record"]).status == 0)
            // A damaged line is skipped and counted, never fatal.
            let handle = try #require(FileHandle(forWritingAtPath: app.log.path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{\"event\": broken\n".utf8))
            try handle.close()

            let report = try await app.run(["paywall", "report", "--format", "json"], now: nil)
            #expect(report.status == 0)
            #expect(report.standardError.contains("skipped 1 damaged line"), "\(report.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(report.standardOutput.utf8)) as? [String: Any])
            let features = try #require(object["features"] as? [String: [String: Any]])
            let sound = try #require(features["soundscapes"])
            #expect(sound["shown"] as? Int == 1 && sound["dismissed"] as? Int == 1 && sound["upgraded"] as? Int == 0)
            #expect(sound["conversion"] as? Double == 0)
            #expect(features["sessions"]?["usedFree"] as? Int == 1 && features["sessions"]?["usedPremium"] as? Int == 1)
            #expect(features["breathing"]?["usedFree"] as? Int == 1)
            #expect(features["widgets"]?["conversion"] is NSNull)
            let since = try await app.run(["paywall", "report", "--since", "2026-11-23T00:00:00Z", "--format", "json"], now: nil)
            #expect(since.standardOutput.contains(#""soundscapes":{"conversion":null,"dismissed":0,"shown":0"#), "\(since.standardOutput)")
            let mode = try FileManager.default.attributesOfItem(atPath: app.log.directoryPath)[.posixPermissions] as? Int
            #expect(mode == 0o2770)
        }
    }

    @Test func daemonAttributesAPurchaseToThePaywallBeforeIt() async throws {
        try await Self.with { app in
            let daemon = try BuiltTools.start("entitlementd", app.common)
            let reader = SnapshotReader(suiteName: Self.group, container: app.container)
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning })
            let mode = try FileManager.default.attributesOfItem(atPath: app.log.directoryPath)[.posixPermissions] as? Int
            #expect(mode == 0o2770)
            #expect(try await app.run(["check", "soundscapes", "--record"], now: nil).status == 1)
            #expect(try await app.run(["check", "widgets", "--record"], now: nil).status == 1)
            let now = Date()
            let purchase = StoreTransaction(
                transactionId: "calm-1", originalTransactionId: "calm-1", bundleId: "app.calm", productId: "app.calm.monthly",
                purchaseDate: now, expiresDate: now + 30 * 86_400, type: .autoRenewable, signedDate: now, environment: .xcode
            ).jsonRepresentation.serialized
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + app.common, input: purchase + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            #expect(await ChildProcess.wait(timeout: .seconds(10)) {
                ((try? app.log.events()) ?? []).filter { $0.kind == .upgradedFromPaywall }.count == 2
            })
            let upgraded = try app.log.events().filter { $0.kind == .upgradedFromPaywall }
            #expect(Set(upgraded.map(\.feature)) == ["soundscapes", "widgets"])
            let report = try await app.json(["paywall", "report"], now: nil)
            let sound = (report.object["features"] as? [String: [String: Any]])?["soundscapes"]
            #expect(sound?["upgraded"] as? Int == 1 && sound?["conversion"] as? Double == 1)
            #expect((report.object["features"] as? [String: [String: Any]])?["sessions"]?["upgraded"] as? Int == 0)
            #expect(await daemon.stop() == 0)
        }
    }
}
