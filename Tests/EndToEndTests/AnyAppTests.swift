import EntitlementDefaults
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// The catalog defines the app (DESIGN.md, "Any app, and the App Store as it is"), driven through
/// the public tools with Stillwater, the second example app in `Examples/Stillwater`, and
/// catalogs derived from it.
@Suite("Any app", .timeLimit(.minutes(2)))
struct AnyAppTests {
    static let exampleDirectory = BuiltTools.packageRoot + "/Examples/Stillwater"
    static let exampleCatalog = exampleDirectory + "/Catalog.json"
    static let stories = exampleDirectory + "/Events"

    /// A temporary directory with a copy of Stillwater's `.storekit` file, its grant keys and its catalog, with
    /// `changes` applied to the catalog's top level (`NSNull` removes a key).
    struct App {
        let root: String
        var catalog: String { root + "/Catalog.json" }
        var container: String { root + "/container" }

        static func with<T>(_ changes: [String: Any] = [:], name: String = #function, _ body: (App) async throws -> T) async throws -> T {
            let root = NSTemporaryDirectory() + "anyapp-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let app = App(root: root)
            try FileManager.default.copyItem(atPath: exampleDirectory + "/Stillwater.storekit", toPath: root + "/Stillwater.storekit")
            try FileManager.default.copyItem(atPath: exampleDirectory + "/Keys", toPath: root + "/Keys")
            try app.writeCatalog(changes)
            return try await body(app)
        }

        func writeCatalog(_ changes: [String: Any]) throws {
            let base = try Data(contentsOf: URL(fileURLWithPath: exampleCatalog))
            var object = try #require(try JSONSerialization.jsonObject(with: base) as? [String: Any])
            for (key, value) in changes { object[key] = value is NSNull ? nil : value }
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: catalog))
        }

        func sharedFile(group: String) -> String { container + "/Library/Preferences/\(group).plist" }
    }

    /// One transaction line of Stillwater's.
    static func transaction(
        id: String, product: String = "app.stillwater.premium.yearly", environment: String = "Xcode",
        purchased: String = "2026-11-20T08:00:00Z", expires: String? = "2027-11-20T08:00:00Z", extra: [String: Any] = [:]
    ) -> String {
        var line: [String: Any] = [
            "transactionId": id, "originalTransactionId": id, "bundleId": "app.stillwater", "productId": product,
            "purchaseDate": milliseconds(purchased), "signedDate": milliseconds(purchased), "environment": environment,
            "type": expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
        ]
        if let expires { line["expiresDate"] = milliseconds(expires) }
        line.merge(extra) { $1 }
        return String(decoding: try! JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self)
    }

    static func milliseconds(_ iso: String) -> Int64 {
        Int64((ISO8601DateFormatter().date(from: iso)!.timeIntervalSince1970 * 1000).rounded())
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func entitlement(_ text: String, _ id: String = "premium") throws -> [String: Any] {
        let entitlements = try #require(try json(text)["entitlements"] as? [String: Any])
        return try #require(entitlements[id] as? [String: Any])
    }

    /// `entitlementctl evaluate` of `lines` under `catalog` at `now`.
    static func evaluate(_ catalog: String, _ lines: [String], now: String = "2026-11-22T10:00:00Z") async throws -> BuiltTools.Result {
        try await BuiltTools.run(
            "entitlementctl", ["evaluate", "--catalog", catalog, "--now", now, "-"], input: lines.joined(separator: "\n") + "\n")
    }

    /// Starts the daemon with `arguments` and waits until the shared file of `group` exists.
    static func startDaemon(_ app: App, group: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> ChildProcess {
        let daemon = try BuiltTools.start(
            "entitlementd", ["--container", app.container, "--catalog", app.catalog] + arguments, environment: environment)
        let ready = await ChildProcess.wait(timeout: .seconds(20)) {
            (daemon.daemonHasStarted && FileManager.default.fileExists(atPath: app.sharedFile(group: group))) || !daemon.isRunning
        }
        guard ready, daemon.isRunning else {
            await daemon.stop()
            throw FixtureError("entitlementd did not publish \(app.sharedFile(group: group)): \(daemon.standardError)")
        }
        return daemon
    }

    // MARK: appGroup, environment lists, the signatures default

    @Test("The catalog's appGroup names the shared file every tool reads, unless --group or ENTITLEMENTS_GROUP names another")
    func catalogNamesTheAppGroup() async throws {
        try await App.with { app in
            let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            let ingest = try await BuiltTools.run(
                "entitlementctl", ["ingest", "--wait", Self.stories + "/upgrade-to-yearly.jsonl"] + common)
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
            #expect(status.status == 0, "\(status.standardError)")
            #expect(try Self.entitlement(status.standardOutput)["active"] as? Bool == true)
            let check = try await BuiltTools.run("entitlementctl", ["check", "courses", "--count", "5"] + common)
            #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
            let render = try await BuiltTools.run("widget-renderer", ["--format", "json", "--family", "systemSmall"] + common)
            #expect(render.status == 0)
            #expect(render.standardError.isEmpty, "\(render.standardError)")
            #expect(!FileManager.default.fileExists(atPath: app.sharedFile(group: "group.com.irenews.geko")))
            // A flag, then the environment, outrank the catalog.
            let flagged = try await BuiltTools.run("entitlementctl", ["status", "--group", "group.other"] + common)
            #expect(flagged.status == 69, "\(flagged.standardError)")
            #expect(flagged.standardError.contains("group.other.plist"))
            let variable = try await BuiltTools.run(
                "entitlementctl", ["status"] + common, environment: ["ENTITLEMENTS_GROUP": "group.from.environment"])
            #expect(variable.status == 69)
            #expect(variable.standardError.contains("group.from.environment.plist"))
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("Without appGroup the group is the default one")
    func noAppGroupIsTheDefault() async throws {
        try await App.with(["appGroup": NSNull()]) { app in
            let daemon = try await Self.startDaemon(app, group: "group.com.irenews.geko")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("An environment list accepts each environment it names and refuses the others")
    func environmentList() async throws {
        try await App.with(["environment": ["Production", "Sandbox"], "signatures": "optional"]) { app in
            let sandbox = try await Self.evaluate(app.catalog, [Self.transaction(id: "1", environment: "Sandbox")])
            #expect(sandbox.status == 0, "\(sandbox.standardError)")
            #expect(try Self.entitlement(sandbox.standardOutput)["active"] as? Bool == true)
            let production = try await Self.evaluate(app.catalog, [Self.transaction(id: "2", environment: "Production")])
            #expect(production.status == 0, "\(production.standardError)")
            let xcode = try await Self.evaluate(app.catalog, [Self.transaction(id: "3", environment: "Xcode")])
            #expect(xcode.status == 65)
            #expect(xcode.standardError.contains("Production or Sandbox"), "\(xcode.standardError)")
        }
    }

    @Test("Signatures default to required when the environment list names Production or Sandbox")
    func environmentListSignatureDefault() async throws {
        try await App.with(["environment": ["Xcode", "Sandbox"]]) { app in
            let unsigned = try await Self.evaluate(app.catalog, [Self.transaction(id: "1", environment: "Xcode")])
            #expect(unsigned.status == 65, "\(unsigned.standardOutput)")
        }
        try await App.with(["environment": ["Xcode", "LocalTesting"]]) { app in
            let unsigned = try await Self.evaluate(app.catalog, [Self.transaction(id: "1", environment: "LocalTesting")])
            #expect(unsigned.status == 0, "\(unsigned.standardError)")
        }
    }

    @Test("A bad appGroup or environment is refused at load with one line naming the file and the key", arguments: [
        (#"{"appGroup": "../escape"}"#, "appGroup"),
        (#"{"appGroup": 7}"#, "appGroup"),
        (#"{"environment": ["Production", 3]}"#, "environment[1]"),
        (#"{"environment": []}"#, "environment"),
        (#"{"environment": ["Sandbox", "Sandbox"]}"#, "environment[1]"),
        (#"{"environment": ["Sandbox", "Staging"]}"#, "environment[1]"),
    ])
    func badKeysRefused(changes: String, key: String) async throws {
        try await App.with(try Self.json(changes)) { app in
            let result = try await Self.evaluate(app.catalog, [])
            #expect(result.status == 65)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(result.standardError)")
            #expect(result.standardError.contains("\(app.catalog): \(key): "), "\(result.standardError)")
        }
    }

    // MARK: unmappedProducts

    @Test("A purchase no entitlement lists is listed in unmappedProducts, and the list is always there")
    func unmappedProductsEvaluated() async throws {
        let pack = try await Self.evaluate(Self.exampleCatalog, [try String(contentsOfFile: Self.stories + "/sleep-pack.jsonl", encoding: .utf8)])
        #expect(pack.status == 0, "\(pack.standardError)")
        #expect(try Self.json(pack.standardOutput)["unmappedProducts"] as? [String] == ["app.stillwater.sleeppack"])
        #expect(try Self.entitlement(pack.standardOutput)["state"] as? String == "notPurchased")
        let none = try await Self.evaluate(Self.exampleCatalog, [try String(contentsOfFile: Self.stories + "/upgrade-to-yearly.jsonl", encoding: .utf8)])
        #expect(try Self.json(none.standardOutput)["unmappedProducts"] as? [String] == [])
    }

    @Test("The daemon keeps an unmapped purchase, names it once in its log, and grants it at once when a SIGHUP brings a catalog that maps it")
    func unmappedProductMappedBySighup() async throws {
        try await App.with { app in
            let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            let first = Self.transaction(id: "71", product: "app.stillwater.sleeppack", expires: nil)
            let second = Self.transaction(id: "72", product: "app.stillwater.sleeppack", purchased: "2026-11-21T08:00:00Z", expires: nil)
            for line in [first, second] {
                let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: line + "\n")
                #expect(ingest.status == 0, "\(ingest.standardError)")
            }
            let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
            #expect(try Self.json(status.standardOutput)["unmappedProducts"] as? [String] == ["app.stillwater.sleeppack"])
            #expect(try Self.entitlement(status.standardOutput)["active"] as? Bool == false)
            let named = daemon.standardError.split(separator: "\n").filter { $0.contains("unmapped") && $0.contains("app.stillwater.sleeppack") }
            #expect(named.count == 1, "\(daemon.standardError)")

            // A bad catalog on SIGHUP is refused and the old one kept.
            try app.writeCatalog(["appGroup": "bad/group"])
            daemon.send(SIGHUP)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { daemon.standardError.contains("kept the previous catalog") })
            #expect(daemon.standardError.contains("appGroup"))

            try app.writeCatalog([
                "entitlements": ["premium": ["products": ["app.stillwater.premium.yearly", "app.stillwater.sleeppack"]]]
            ])
            daemon.send(SIGHUP)
            let reader = SnapshotReader(suiteName: "group.app.stillwater", container: app.container)
            let granted = await ChildProcess.wait(timeout: .seconds(10)) { reader.refresh().snapshot?.status(of: "premium").active == true }
            #expect(granted, "\(daemon.standardError)")
            let after = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
            #expect(try Self.json(after.standardOutput)["unmappedProducts"] as? [String] == [])
            #expect(try Self.entitlement(after.standardOutput)["productId"] as? String == "app.stillwater.sleeppack")
            #expect(await daemon.stop() == 0)
        }
    }

    // MARK: products

    @Test("products lists every product granting the entitlement, the deciding one first, in evaluate, status and the shared file")
    func everyGrantingProduct() async throws {
        let story = try String(contentsOfFile: Self.stories + "/forever-and-quarterly.jsonl", encoding: .utf8)
        let result = try await Self.evaluate(Self.exampleCatalog, [story])
        #expect(result.status == 0, "\(result.standardError)")
        let premium = try Self.entitlement(result.standardOutput)
        #expect(premium["productId"] as? String == "app.stillwater.forever")
        #expect(premium["products"] as? [String] == ["app.stillwater.forever", "app.stillwater.premium.quarterly"])
        // After the quarter, only the lifetime purchase grants; a plan alone lists itself; nothing active lists nothing.
        let later = try await Self.evaluate(Self.exampleCatalog, [story], now: "2027-02-01T00:00:00Z")
        #expect(try Self.entitlement(later.standardOutput)["products"] as? [String] == ["app.stillwater.forever"])
        let pack = try await Self.evaluate(Self.exampleCatalog, [try String(contentsOfFile: Self.stories + "/sleep-pack.jsonl", encoding: .utf8)])
        #expect(try Self.entitlement(pack.standardOutput)["products"] as? [String] == [])

        try await App.with { app in
            let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            let lines = [
                Self.transaction(id: "81", product: "app.stillwater.premium.quarterly", expires: "2027-12-01T00:00:00Z"),
                Self.transaction(id: "82", product: "app.stillwater.forever", expires: nil),
            ]
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: lines.joined(separator: "\n") + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
            #expect(try Self.entitlement(status.standardOutput)["products"] as? [String] == ["app.stillwater.forever", "app.stillwater.premium.quarterly"])
            let plist = try PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: app.sharedFile(group: "group.app.stillwater"))), format: nil) as? [String: Any]
            let snapshot = try #require(plist?["entitlementSnapshot"] as? [String: Any])
            let entry = try #require((snapshot["entitlements"] as? [String: Any])?["premium"] as? [String: Any])
            #expect(entry["products"] as? [String] == ["app.stillwater.forever", "app.stillwater.premium.quarterly"])
            #expect(snapshot["unmappedProducts"] as? [String] == [])
            #expect(await daemon.stop() == 0)
        }
    }

    // MARK: offer period types, revocation

    @Test("offerType 2, 3 and 4 read promotional, offerCode and winBack; an unknown offer type stays intro", arguments: [
        (2, "promotional"), (3, "offerCode"), (4, "winBack"), (9, "intro"),
    ])
    func offerPeriodTypes(offerType: Int, periodType: String) async throws {
        let line = Self.transaction(id: "91", product: "app.stillwater.premium.quarterly", expires: "2027-02-20T08:00:00Z", extra: [
            "offerType": offerType, "offerIdentifier": "calm.spring", "offerDiscountType": "PAY_UP_FRONT",
        ])
        let result = try await Self.evaluate(Self.exampleCatalog, [line])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Self.entitlement(result.standardOutput)["periodType"] as? String == periodType)
    }

    static let appleModels = BuiltTools.packageRoot + "/Tests/EndToEndTests/AppleModels"

    /// Apple's example transaction with a revocation, not an upgrade (so that it decides), and the given `revocationType`.
    static func appleRevokedTransaction(_ revocationType: String) throws -> String {
        var payload = try json(try String(contentsOfFile: appleModels + "/signedTransactionWithRevocation.json", encoding: .utf8))
        payload["isUpgraded"] = false
        payload["revocationType"] = revocationType
        return String(decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("A revoked entitlement says whether the family organiser stopped sharing or Apple refunded", arguments: [
        ("FAMILY_REVOKE", "familyRevoked"), ("REFUND_PRORATED", "refunded"), ("REFUND_FULL", "refunded"),
    ])
    func revocationKinds(revocationType: String, revocation: String) async throws {
        let result = try await Self.evaluate(
            Self.appleModels + "/Catalog.json", [try Self.appleRevokedTransaction(revocationType)], now: "2023-10-24T12:30:00Z")
        #expect(result.status == 0, "\(result.standardError)")
        let pro = try Self.entitlement(result.standardOutput, "pro")
        #expect(pro["state"] as? String == "revoked")
        #expect(pro["revocation"] as? String == revocation)
        #expect(pro["active"] as? Bool == false)
    }

    @Test("check reports familyRevoked for a family revoke and revoked for a refund, through the daemon and the shared file")
    func checkReasonForRevocation() async throws {
        for (revocationType, reason) in [("FAMILY_REVOKE", "familyRevoked"), ("REFUND_FULL", "revoked")] {
            try await App.with { app in
                let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
                let common = ["--container", app.container, "--catalog", app.catalog]
                let revoked = Self.transaction(id: "95", purchased: "2026-11-20T08:00:00Z", extra: [
                    "inAppOwnershipType": "FAMILY_SHARED", "revocationDate": Self.milliseconds("2026-11-21T08:00:00Z"),
                    "revocationType": revocationType, "revocationReason": 0,
                ])
                let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: revoked + "\n")
                #expect(ingest.status == 0, "\(ingest.standardError)")
                let check = try await BuiltTools.run("entitlementctl", ["check", "wristSessions", "--format", "json"] + common)
                #expect(check.status == 1, "\(check.standardError)")
                #expect(try Self.json(check.standardOutput)["reason"] as? String == reason)
                let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
                #expect(try Self.entitlement(status.standardOutput)["revocation"] as? String == (reason == "revoked" ? "refunded" : reason))
                #expect(await daemon.stop() == 0)
            }
        }
    }

    // MARK: widgetFeature, watchFeature, --feature

    static func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { try json(String($0)) }
    }

    @Test("The catalog names the features that gate the widgets and the watch; --feature overrides; every JSON line names its feature")
    func widgetAndWatchFeatures() async throws {
        try await App.with { app in
            let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            let trial = Self.transaction(id: "61", product: "app.stillwater.premium.weekly", expires: "2027-11-27T08:00:00Z", extra: [
                "offerType": 1, "offerDiscountType": "FREE_TRIAL",
            ])
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: trial + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")

            let phone = try await BuiltTools.run("widget-renderer", ["--format", "json"] + common)
            #expect(phone.status == 0, "\(phone.standardError)")
            let phoneLines = try Self.lines(phone.standardOutput)
            #expect(!phoneLines.isEmpty)
            for line in phoneLines {
                #expect(line["feature"] as? String == "calmWidget")
                #expect(((line["entries"] as? [[String: Any]])?.first?["locked"] as? Bool) == false, "\(line)")
            }
            let watch = try await BuiltTools.run("widget-renderer", ["--device", "watch", "--format", "json"] + common)
            #expect(watch.status == 0, "\(watch.standardError)")
            let watchLines = try Self.lines(watch.standardOutput)
            #expect(watchLines.count > 1)
            for line in watchLines { #expect(line["feature"] as? String == "wristSessions", "\(line)") }
            #expect((watchLines.first?["launch"] as? [String: Any])?["locked"] as? Bool == false)

            let free = try await BuiltTools.run("widget-renderer", ["--format", "json", "--family", "systemSmall", "--feature", "breathe"] + common)
            #expect(try Self.lines(free.standardOutput).first?["feature"] as? String == "breathe")
            let unknown = try await BuiltTools.run("widget-renderer", ["--feature", "nope"] + common)
            #expect(unknown.status == 64)
            #expect(unknown.standardError.contains("calmWidget"), "\(unknown.standardError)")

            // Without the keys, the defaults: widgets and watchApp.
            try app.writeCatalog(["widgetFeature": NSNull(), "watchFeature": NSNull()])
            let defaults = try await BuiltTools.run("widget-renderer", ["--format", "json", "--family", "systemSmall"] + common)
            #expect(try Self.lines(defaults.standardOutput).first?["feature"] as? String == "widgets")
            let watchDefaults = try await BuiltTools.run("widget-renderer", ["--device", "watch", "--format", "json"] + common)
            #expect(try Self.lines(watchDefaults.standardOutput).first?["feature"] as? String == "watchApp")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A widgetFeature or watchFeature the catalog does not define is refused at load, naming the key", arguments: [
        "widgetFeature", "watchFeature",
    ])
    func badFeatureKeys(key: String) async throws {
        try await App.with([key: "nope"]) { app in
            let result = try await Self.evaluate(app.catalog, [])
            #expect(result.status == 65)
            #expect(result.standardError.contains("\(app.catalog): \(key): feature 'nope' is not in features"), "\(result.standardError)")
        }
    }

    // MARK: legacyKeys

    static func suite(_ app: App, group: String = "group.app.stillwater") throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: app.sharedFile(group: group)))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("Each publish writes the catalog's legacyKeys as plain booleans beside the snapshot, true exactly when the entitlement is active")
    func legacyKeysPublished() async throws {
        try await App.with { app in
            let daemon = try await Self.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            #expect(try Self.suite(app)["isPremium"] as? Bool == false)
            let ingest = try await BuiltTools.run(
                "entitlementctl", ["ingest", "--wait", Self.stories + "/upgrade-to-yearly.jsonl"] + common)
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let suite = try Self.suite(app)
            #expect(suite["isPremium"] as? Bool == true)
            let snapshot = try #require(suite["entitlementSnapshot"] as? [String: Any])
            #expect((snapshot["entitlements"] as? [String: [String: Any]])?["premium"]?["active"] as? Bool == true)
            // A refund of the yearly plan turns the flag off at the next publish.
            let refund = Self.transaction(id: "5000000013", purchased: "2026-11-22T08:00:00Z", expires: "2027-11-22T08:00:00Z", extra: [
                "originalTransactionId": "5000000011", "revocationDate": Self.milliseconds("2026-11-23T08:00:00Z"),
                "signedDate": Self.milliseconds("2026-11-23T08:00:00Z"),
            ])
            let refunded = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: refund + "\n")
            #expect(refunded.status == 0, "\(refunded.standardError)")
            #expect(try Self.suite(app)["isPremium"] as? Bool == false)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A legacy key naming no entitlement, or the snapshot's own key, is refused at load", arguments: [
        #"{"legacyKeys": {"isPlus": "plus"}}"#, #"{"legacyKeys": {"entitlementSnapshot": "premium"}}"#, #"{"legacyKeys": {"isPlus": true}}"#,
    ])
    func badLegacyKeys(changes: String) async throws {
        try await App.with(try Self.json(changes)) { app in
            let result = try await Self.evaluate(app.catalog, [])
            #expect(result.status == 65)
            #expect(result.standardError.contains("\(app.catalog): legacyKeys."), "\(result.standardError)")
        }
    }

    // MARK: renewalLeeway

    struct LeewayCase: Sendable, CustomTestStringConvertible {
        var name: String
        var renewal: [String: Int]?
        var revoked = false
        var now = "2026-11-21T08:00:00Z"
        var state: String
        var active: Bool
        var renewalPending = false
        var expiresAt: String?
        var testDescription: String { name }
    }

    static let leewayCases: [LeewayCase] = [
        LeewayCase(name: "auto-renew on: active for the leeway", renewal: ["autoRenewStatus": 1], state: "subscribed", active: true,
                   renewalPending: true, expiresAt: "2026-11-22T08:00:00Z"),
        LeewayCase(name: "past the leeway: expired", renewal: ["autoRenewStatus": 1], now: "2026-11-22T09:00:00Z", state: "expired", active: false),
        LeewayCase(name: "no renewal info: expired at once", renewal: nil, state: "expired", active: false),
        LeewayCase(name: "auto-renew off: expired at once", renewal: ["autoRenewStatus": 0], state: "expired", active: false),
        LeewayCase(name: "billing retry: no leeway", renewal: ["autoRenewStatus": 1, "isInBillingRetryPeriod": 1],
                   state: "inBillingRetryPeriod", active: false),
        LeewayCase(name: "refunded: no leeway", renewal: ["autoRenewStatus": 1], revoked: true, state: "revoked", active: false),
    ]

    @Test("renewalLeeway keeps a subscription whose renewal has not arrived active, on positive evidence only", arguments: leewayCases)
    func renewalLeeway(_ row: LeewayCase) async throws {
        try await App.with(["renewalLeeway": "P2D"]) { app in
            var extra: [String: Any] = [:]
            if row.revoked { extra["revocationDate"] = Self.milliseconds("2026-11-19T08:00:00Z") }
            var lines = [Self.transaction(
                id: "41", product: "app.stillwater.premium.quarterly", purchased: "2026-08-20T08:00:00Z", expires: "2026-11-20T08:00:00Z",
                extra: extra)]
            if let renewal = row.renewal {
                var info: [String: Any] = [
                    "originalTransactionId": "41", "autoRenewProductId": "app.stillwater.premium.quarterly",
                    "signedDate": Self.milliseconds("2026-11-19T08:00:00Z"), "environment": "Xcode",
                ]
                info.merge(renewal) { $1 }
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: info, options: [.sortedKeys]), as: UTF8.self))
            }
            let result = try await Self.evaluate(app.catalog, lines, now: row.now)
            #expect(result.status == 0, "\(result.standardError)")
            let premium = try Self.entitlement(result.standardOutput)
            #expect(premium["state"] as? String == row.state)
            #expect(premium["active"] as? Bool == row.active)
            #expect(premium["renewalPending"] as? Bool == row.renewalPending)
            #expect(premium["expiresAt"] as? String == row.expiresAt)
            if row.renewalPending { #expect(try Self.json(result.standardOutput)["nextTransition"] as? String == row.expiresAt) }
        }
    }

    @Test("Without renewalLeeway a subscription ends at its expiresDate; a leeway that is not a duration is refused")
    func noLeewayByDefault() async throws {
        let lines = [
            Self.transaction(id: "42", product: "app.stillwater.premium.quarterly", purchased: "2026-08-20T08:00:00Z", expires: "2026-11-20T08:00:00Z"),
            #"{"originalTransactionId":"42","autoRenewStatus":1,"signedDate":1795600000000,"environment":"Xcode"}"#,
        ]
        let result = try await Self.evaluate(Self.exampleCatalog, lines, now: "2026-11-21T08:00:00Z")
        #expect(try Self.entitlement(result.standardOutput)["state"] as? String == "expired")
        try await App.with(["renewalLeeway": "3 days"]) { app in
            let refused = try await Self.evaluate(app.catalog, [])
            #expect(refused.status == 65)
            #expect(refused.standardError.contains("\(app.catalog): renewalLeeway: "), "\(refused.standardError)")
        }
    }
}
