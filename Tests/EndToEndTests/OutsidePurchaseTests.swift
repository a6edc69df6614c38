import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Access no in-app purchase gives (DESIGN.md, "Any app, and the App Store as it is"): the app
/// bought while it was paid (`paidAppGrant` and `AppTransaction` lines) and the developer's
/// signed grants (`grantKeys`), driven through the public tools with Stillwater's catalog.
@Suite("Paid app and grants", .timeLimit(.minutes(4)))
struct OutsidePurchaseTests {
    typealias App = AnyAppTests.App
    static let grants = TestSigner.grants
    static var grantKeys: [String: Any] { ["support-2026": "grant-key.pub.pem"] }

    /// Copies the grant fixtures' public keys next to `app`'s catalog.
    static func copyKeys(_ app: App) throws {
        for name in ["grant-key.pub.pem", "grant-key.pub.der", "other-key.pub.pem"] {
            try FileManager.default.copyItem(atPath: grants + "/" + name, toPath: app.root + "/" + name)
        }
    }

    /// Apple's example app transaction (Tests/EndToEndTests/AppleModels/appTransaction.json) made
    /// Stillwater's, with `changes` applied.
    static func appTransaction(_ changes: [String: Any] = [:]) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: BuiltTools.packageRoot + "/Tests/EndToEndTests/AppleModels/appTransaction.json"))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["bundleId"] = "app.stillwater"
        object["receiptType"] = "Production"
        for (key, value) in changes { object[key] = value }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A grant payload of Stillwater's.
    static func grantPayload(
        id: String, entitlement: String = "premium", expires: Date? = nil, revoked: Bool = false, signed: Date
    ) -> String {
        let object: [String: Any] = [
            "grantId": id, "entitlement": entitlement, "expiresDate": expires.map { Int64($0.timeIntervalSince1970 * 1000) } ?? NSNull(),
            "revoked": revoked, "reason": "support", "bundleId": "app.stillwater", "signedDate": Int64(signed.timeIntervalSince1970 * 1000),
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func status(_ app: App) async throws -> String {
        let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json", "--container", app.container, "--catalog", app.catalog])
        #expect(status.status == 0, "\(status.standardError)")
        return status.standardOutput
    }

    /// Waits until `entitlement`'s published status satisfies `condition`.
    static func published(_ app: App, _ entitlement: String = "premium", _ condition: ([String: Any]) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while clock.now < deadline {
            let result = try? await BuiltTools.run(
                "entitlementctl", ["status", "--format", "json", "--container", app.container, "--catalog", app.catalog])
            if let text = result?.standardOutput, let status = try? AnyAppTests.entitlement(text, entitlement), condition(status) { return true }
            try? await clock.sleep(for: .milliseconds(100))
        }
        return false
    }

    static func ingest(_ app: App, _ arguments: [String], input: String? = nil) async throws -> BuiltTools.Result {
        try await BuiltTools.run("entitlementctl", ["ingest"] + arguments + ["--container", app.container, "--catalog", app.catalog], input: input)
    }

    // MARK: paidAppGrant

    @Test("A Production app transaction of a build before beforeVersion keeps the entitlement for good; Sandbox and later builds do not")
    func paidAppGrantByVersion() async throws {
        try await App.with([
            "environment": ["Production", "Sandbox"], "signatures": "optional",
            "paidAppGrant": ["entitlement": "premium", "beforeVersion": "2.0"],
        ]) { app in
            let paid = try await AnyAppTests.evaluate(app.catalog, [try Self.appTransaction(["originalApplicationVersion": "1.10.2"])])
            #expect(paid.status == 0, "\(paid.standardError)")
            let premium = try AnyAppTests.entitlement(paid.standardOutput)
            #expect(premium["active"] as? Bool == true)
            #expect(premium["state"] as? String == "purchased")
            #expect(premium["ownership"] as? String == "paidApp")
            #expect(premium["productId"] is NSNull)
            #expect(premium["expiresAt"] is NSNull)
            // Dotted numeric order: 10.0 is after 2.0, and 2.0 itself is not before it.
            for version in ["10.0", "2", "2.0.0"] {
                let later = try await AnyAppTests.evaluate(app.catalog, [try Self.appTransaction(["originalApplicationVersion": version])])
                #expect(later.status == 0, "\(later.standardError)")
                #expect(try AnyAppTests.entitlement(later.standardOutput)["active"] as? Bool == false, "version \(version)")
            }
            let sandbox = try await AnyAppTests.evaluate(app.catalog, [try Self.appTransaction(["receiptType": "Sandbox", "originalApplicationVersion": "1.0"])])
            #expect(sandbox.status == 0, "\(sandbox.standardError)")
            #expect(try AnyAppTests.entitlement(sandbox.standardOutput)["state"] as? String == "notPurchased")
            let foreign = try await AnyAppTests.evaluate(app.catalog, [try Self.appTransaction(["bundleId": "com.example"])])
            #expect(foreign.status == 65)
            #expect(foreign.standardError.contains("<stdin>:1:") && foreign.standardError.contains("bundleId"), "\(foreign.standardError)")
        }
    }

    @Test("beforeDate grants to an app bought before it; a signed app transaction counts under signatures: required, an unsigned one is refused")
    func paidAppGrantByDateSigned() async throws {
        try await App.with([
            "environment": ["Production", "Sandbox"], "trustedRoots": ["test-self-signed.cer"],
            "paidAppGrant": ["entitlement": "premium", "beforeDate": "2024-01-01T00:00:00Z"],
        ]) { app in
            try FileManager.default.copyItem(atPath: TestSigner.certificatePath, toPath: app.root + "/test-self-signed.cer")
            // Bought 2023-10-24, before the date.
            let signed = TestSigner.jws(try Self.appTransaction())
            let granted = try await AnyAppTests.evaluate(app.catalog, [signed])
            #expect(granted.status == 0, "\(granted.standardError)")
            #expect(try AnyAppTests.entitlement(granted.standardOutput)["ownership"] as? String == "paidApp")
            let after = try await AnyAppTests.evaluate(app.catalog, [TestSigner.jws(try Self.appTransaction(["originalPurchaseDate": 1_710_000_000_000]))])
            #expect(try AnyAppTests.entitlement(after.standardOutput)["active"] as? Bool == false)
            let unsigned = try await AnyAppTests.evaluate(app.catalog, [try Self.appTransaction()])
            #expect(unsigned.status == 65)
            #expect(unsigned.standardError.contains("unsigned app transaction"), "\(unsigned.standardError)")
            // The server's response shape.
            let response = "{\"signedAppTransactionInfo\": \"\(signed)\"}"
            let fromServer = try await AnyAppTests.evaluate(app.catalog, [response])
            #expect(try AnyAppTests.entitlement(fromServer.standardOutput)["ownership"] as? String == "paidApp", "\(fromServer.standardError)")
        }
    }

    @Test("paidAppGrant and grantKeys are validated at load: one line naming the file and the key, exit 65")
    func catalogKeysValidated() async throws {
        let cases: [([String: Any], String)] = [
            (["paidAppGrant": ["entitlement": "gold", "beforeVersion": "2.0"]], "paidAppGrant.entitlement"),
            (["paidAppGrant": ["entitlement": "premium", "beforeVersion": "2.x"]], "paidAppGrant.beforeVersion"),
            (["paidAppGrant": ["entitlement": "premium", "beforeDate": "soon"]], "paidAppGrant.beforeDate"),
            (["paidAppGrant": ["entitlement": "premium"]], "paidAppGrant"),
            (["grantKeys": ["k": "missing.pem"]], "grantKeys.k"),
            (["grantKeys": ["k": "Stillwater.storekit"]], "grantKeys.k"),
            (["grantKeys": ["k": 7]], "grantKeys.k"),
        ]
        for (changes, key) in cases {
            try await App.with(changes) { app in
                try Self.copyKeys(app)
                let result = try await BuiltTools.run("entitlementctl", ["features", "--catalog", app.catalog])
                #expect(result.status == 65, "\(changes)")
                let lines = result.standardError.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(app.catalog + ": " + key + ":"), "\(changes): \(result.standardError)")
            }
        }
        // A DER key works as well as PEM.
        try await App.with(["grantKeys": ["support-2026": "grant-key.pub.der"]]) { app in
            try Self.copyKeys(app)
            let result = try await AnyAppTests.evaluate(app.catalog, [try String(contentsOfFile: Self.grants + "/grant.jws", encoding: .utf8)])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try AnyAppTests.entitlement(result.standardOutput)["ownership"] as? String == "granted")
        }
    }

    // MARK: grantKeys

    @Test("A wrong key, an unknown kid or a tampered payload is refused with 65 naming file:line; an unknown kid in both signature modes")
    func badGrantsRefused() async throws {
        for mode in ["required", "optional"] {
            try await App.with(["grantKeys": Self.grantKeys, "signatures": mode]) { app in
                try Self.copyKeys(app)
                let expected = [
                    "grant-wrong-key.jws": "does not verify with grant key 'support-2026'",
                    "grant-unknown-kid.jws": "unknown kid 'retired-2019'",
                    "grant-tampered.jws": "does not verify with grant key 'support-2026'",
                ]
                for (name, problem) in expected {
                    let file = Self.grants + "/" + name
                    let result = try await Self.ingest(app, [file])
                    #expect(result.status == 65, "\(mode) \(name): \(result.standardError)")
                    #expect(result.standardError.contains(file + ":1:") && result.standardError.contains(problem), "\(mode) \(name): \(result.standardError)")
                }
                let unsigned = try await Self.ingest(app, [Self.grants + "/grant-unsigned.json"])
                if mode == "required" {
                    #expect(unsigned.status == 65)
                    #expect(unsigned.standardError.contains("grant-unsigned.json:1: unsigned grant"), "\(unsigned.standardError)")
                } else {
                    #expect(unsigned.status == 0, "\(unsigned.standardError)")
                    let evaluated = try await AnyAppTests.evaluate(app.catalog, [try String(contentsOfFile: Self.grants + "/grant-unsigned.json", encoding: .utf8)])
                    #expect(try AnyAppTests.entitlement(evaluated.standardOutput)["ownership"] as? String == "granted")
                }
            }
        }
    }

    @Test("A good grant unlocks through the daemon; a newer revocation locks; the older grant replayed changes nothing, also after a restart")
    func grantLifecycleThroughDaemon() async throws {
        try await App.with(["grantKeys": Self.grantKeys, "signatures": "required"]) { app in
            try Self.copyKeys(app)
            var daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            let good = try await Self.ingest(app, ["--wait", Self.grants + "/grant.jws"])
            #expect(good.status == 0, "\(good.standardError)")
            let premium = try AnyAppTests.entitlement(try await Self.status(app))
            #expect(premium["active"] as? Bool == true)
            #expect(premium["state"] as? String == "purchased")
            #expect(premium["ownership"] as? String == "granted")
            #expect(premium["productId"] is NSNull)
            let check = try await BuiltTools.run("entitlementctl", ["check", "calmWidget", "--container", app.container, "--catalog", app.catalog])
            #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")

            let revoked = try await Self.ingest(app, ["--wait", Self.grants + "/grant-revoked.jws"])
            #expect(revoked.status == 0, "\(revoked.standardError)")
            #expect(try AnyAppTests.entitlement(try await Self.status(app))["active"] as? Bool == false)
            let replay = try await Self.ingest(app, ["--wait", Self.grants + "/grant.jws"])
            #expect(replay.status == 0, "\(replay.standardError)")
            #expect(try AnyAppTests.entitlement(try await Self.status(app))["active"] as? Bool == false)

            #expect(await daemon.stop() == 0)
            daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            #expect(await Self.published(app) { $0["state"] as? String == "notPurchased" })
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A grant with an expiresDate is subscribed until then and locks at that time, the daemon publishing the transition")
    func grantExpiresAtItsTime() async throws {
        try await App.with(["grantKeys": Self.grantKeys]) { app in
            try Self.copyKeys(app)
            let daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            // Long enough to see it in force on a loaded machine; if not, the lock is still checked.
            let now = Date()
            let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 6).rounded())
            let line = TestSigner.grantJWS(Self.grantPayload(id: "trial-7", expires: expires, signed: now))
            let ingest = try await Self.ingest(app, ["--wait", "-"], input: line + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let premium = try AnyAppTests.entitlement(try await Self.status(app))
            if Date() < expires.addingTimeInterval(-1) {
                #expect(premium["active"] as? Bool == true, "\(premium)")
                #expect(premium["state"] as? String == "subscribed")
                #expect(premium["ownership"] as? String == "granted")
                #expect(premium["expiresAt"] as? String == ISO8601DateFormatter().string(from: expires))
            }
            #expect(await Self.published(app) { $0["state"] as? String == "expired" && $0["active"] as? Bool == false })
            #expect(Date() >= expires)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("App transactions and grants are journaled: a catalog without paidAppGrant and the grant key, a compaction under it, and both count again with the catalog")
    func keptThroughCatalogChangeAndCompaction() async throws {
        let keys: [String: Any] = [
            "environment": ["Production", "Xcode"], "signatures": "optional", "grantKeys": Self.grantKeys,
            "paidAppGrant": ["entitlement": "premium", "beforeVersion": "2.0"],
            "entitlements": [
                "premium": ["products": ["app.stillwater.premium.weekly", "app.stillwater.premium.yearly", "app.stillwater.forever"]],
                "gift": ["products": []],
            ],
        ]
        try await App.with(keys) { app in
            try Self.copyKeys(app)
            var daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            let gift = TestSigner.grantJWS(Self.grantPayload(id: "gift-1", entitlement: "gift", signed: Date()))
            let ingest = try await Self.ingest(app, ["--wait", "-"], input: try Self.appTransaction() + "\n" + gift + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            #expect(await Self.published(app) { $0["ownership"] as? String == "paidApp" })
            #expect(await Self.published(app, "gift") { $0["ownership"] as? String == "granted" })
            #expect(await daemon.stop() == 0)

            // Neither paidAppGrant nor the grant key: both grant nothing, and a long history
            // compacts the journal under this catalog.
            var changed = keys
            changed["paidAppGrant"] = NSNull()
            changed["grantKeys"] = NSNull()
            try app.writeCatalog(changed)
            daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            #expect(await Self.published(app) { $0["state"] as? String == "notPurchased" })
            #expect(await Self.published(app, "gift") { $0["state"] as? String == "notPurchased" })
            let history = try await Self.ingest(app, ["-"], input: Self.history())
            #expect(history.status == 0, "\(history.standardError)")
            #expect(await JournalKeepingTests.logged(daemon, "compacted the journal"), "\(daemon.standardError.suffix(2000))")
            #expect(await daemon.stop() == 0)

            // The catalog put back: both count again.
            try app.writeCatalog(keys)
            daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            #expect(await Self.published(app) { $0["ownership"] as? String == "paidApp" && $0["active"] as? Bool == true })
            #expect(await Self.published(app, "gift") { $0["ownership"] as? String == "granted" && $0["active"] as? Bool == true })
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("Stillwater's support-grant story gives a month of Premium, granted, under the example catalog's grantKeys")
    func stillwaterSupportGrantStory() async throws {
        let story = try String(contentsOfFile: AnyAppTests.stories + "/support-grant.jsonl", encoding: .utf8)
        let result = try await AnyAppTests.evaluate(AnyAppTests.exampleCatalog, [story])
        #expect(result.status == 0, "\(result.standardError)")
        let premium = try AnyAppTests.entitlement(result.standardOutput)
        #expect(premium["state"] as? String == "subscribed")
        #expect(premium["ownership"] as? String == "granted")
        #expect(premium["expiresAt"] as? String == "2026-12-20T08:00:00Z")
        let later = try await AnyAppTests.evaluate(AnyAppTests.exampleCatalog, [story], now: "2026-12-21T00:00:00Z")
        #expect(try AnyAppTests.entitlement(later.standardOutput)["state"] as? String == "expired")
    }

    /// Expired Xcode purchases of Stillwater, more than the daemon's compaction floor (1 MiB).
    static func history() -> String {
        let long = Date().addingTimeInterval(-400 * 86_400)
        let formatter = ISO8601DateFormatter()
        var lines: [String] = []
        var bytes = 0
        while bytes < 1_300_000 {
            let line = AnyAppTests.transaction(
                id: "h\(lines.count)", purchased: formatter.string(from: long), expires: formatter.string(from: long.addingTimeInterval(7 * 86_400)))
            bytes += line.utf8.count
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
