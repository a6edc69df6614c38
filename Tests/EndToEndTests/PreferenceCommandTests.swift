import EntitlementDefaults
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// The catalog's `preferences` (DESIGN.md, "Any app, and the App Store as it is"): premium
/// toggles declared by the catalog, stored by `entitlementctl preference`, kept across the
/// daemon's publishes and reported by `status`. Driven with Stillwater, which knows no sync.
@Suite("Preferences", .timeLimit(.minutes(2)))
struct PreferenceCommandTests {
    static let group = "group.app.stillwater"
    /// Stillwater's catalog with a reminder toggle of its own that needs the watch feature, off by default.
    static var declared: [String: Any] { [
        "preferences": [
            "wristReminders": ["feature": "wristSessions", "default": false],
            "quietChimes": ["feature": "breathe", "default": true],
        ]
    ] }

    static func preferences(_ app: AnyAppTests.App) async throws -> [String: [String: Bool]] {
        let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json", "--container", app.container, "--catalog", app.catalog])
        #expect(status.status == 0, "\(status.standardError)")
        return try #require(try AnyAppTests.json(status.standardOutput)["preferences"] as? [String: [String: Bool]], "\(status.standardOutput)")
    }

    @Test("A bad preferences declaration is refused at load with one line naming the file and the key", arguments: [
        #"{"preferences": {"wristReminders": {"feature": "sync", "default": false}}}"#,
        #"{"preferences": {"wristReminders": {"default": false}}}"#,
        #"{"preferences": {"wristReminders": {"feature": "breathe", "default": "yes"}}}"#,
        #"{"preferences": {"wristReminders": {"feature": "breathe", "defualt": true}}}"#,
        #"{"preferences": {"entitlementSnapshot": {"feature": "breathe"}}}"#,
        #"{"preferences": {"isPremium": {"feature": "breathe"}}}"#,
        #"{"preferences": ["wristReminders"]}"#,
    ])
    func badDeclarationsRefused(changes: String) async throws {
        try await AnyAppTests.App.with(try AnyAppTests.json(changes)) { app in
            let result = try await AnyAppTests.evaluate(app.catalog, [])
            #expect(result.status == 65)
            #expect(result.standardError.contains("\(app.catalog): preferences"), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        }
    }

    @Test("preference stores the choice in the suite, a publish keeps it, and status says when it takes effect")
    func roundTripThroughThePublish() async throws {
        try await AnyAppTests.App.with(Self.declared) { app in
            let daemon = try await AnyAppTests.startDaemon(app, group: Self.group)
            let common = ["--container", app.container, "--catalog", app.catalog]
            #expect(try await Self.preferences(app) == [
                "wristReminders": ["value": false, "effectiveAtNextLaunch": false],
                "quietChimes": ["value": true, "effectiveAtNextLaunch": true],
            ])

            let on = try await BuiltTools.run("entitlementctl", ["preference", "wristReminders", "on"] + common)
            #expect(on.status == 0, "\(on.standardError)")
            #expect(try AnyAppTests.suite(app)["wristReminders"] as? Bool == true)
            // On, but the watch feature is locked for a free user: not in effect at the next launch.
            #expect(try await Self.preferences(app)["wristReminders"] == ["value": true, "effectiveAtNextLaunch": false])
            let text = try await BuiltTools.run("entitlementctl", ["status"] + common)
            #expect(text.standardOutput.contains("preference wristReminders (wristSessions): on; at next launch: off (needs premium: notEntitled)"),
                    "\(text.standardOutput)")
            #expect(!text.standardOutput.contains("sync"), "nothing of the example app: \(text.standardOutput)")

            // The purchase makes the daemon publish: the stored choice survives the replace.
            let ingest = try await BuiltTools.run(
                "entitlementctl", ["ingest", "--wait", "-"] + common, input: AnyAppTests.transaction(id: "61") + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let suite = try AnyAppTests.suite(app)
            #expect(suite["wristReminders"] as? Bool == true)
            #expect((suite["entitlementSnapshot"] as? [String: Any])?["generation"] as? Int ?? 0 >= 2)
            #expect(try await Self.preferences(app)["wristReminders"] == ["value": true, "effectiveAtNextLaunch": true])

            let off = try await BuiltTools.run("entitlementctl", ["preference", "quietChimes", "off"] + common)
            #expect(off.status == 0, "\(off.standardError)")
            #expect(try await Self.preferences(app)["quietChimes"] == ["value": false, "effectiveAtNextLaunch": false])

            let unknown = try await BuiltTools.run("entitlementctl", ["preference", "syncEnabled", "on"] + common)
            #expect(unknown.status == 64)
            #expect(unknown.standardError.contains("quietChimes, wristReminders"), "\(unknown.standardError)")
            #expect(try await BuiltTools.run("entitlementctl", ["preference", "wristReminders", "maybe"] + common).status == 64)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("Choices written while the daemon publishes are never lost to its replace")
    func choicesSurviveConcurrentPublishes() async throws {
        try await AnyAppTests.App.with(Self.declared) { app in
            let daemon = try await AnyAppTests.startDaemon(app, group: Self.group)
            let common = ["--container", app.container, "--catalog", app.catalog]
            // Each ingested purchase is one publish; the toggles run between and during them.
            let lines = (0..<8).map { index in
                AnyAppTests.transaction(id: "70\(index)", purchased: "2026-11-2\(index)T08:00:00Z", expires: "2027-11-20T08:00:00Z")
            }
            async let publishes = Self.ingestOneByOne(lines, common)
            var last = false
            for round in 0..<16 {
                last = round % 2 == 0
                let set = try await BuiltTools.run("entitlementctl", ["preference", "wristReminders", last ? "on" : "off"] + common)
                #expect(set.status == 0, "\(set.standardError)")
            }
            #expect(try await publishes == Array(repeating: 0, count: 8))
            #expect(try AnyAppTests.suite(app)["wristReminders"] as? Bool == last)
            // A publish after the last choice keeps it too.
            let after = try await BuiltTools.run(
                "entitlementctl", ["ingest", "--wait", "-"] + common, input: AnyAppTests.transaction(id: "799", product: "app.stillwater.forever", expires: nil) + "\n")
            #expect(after.status == 0, "\(after.standardError)")
            #expect(try AnyAppTests.suite(app)["wristReminders"] as? Bool == last)
            #expect(await daemon.stop() == 0)
        }
    }

    /// `ingest --wait` of each line in turn: one publish each. Their exit statuses.
    static func ingestOneByOne(_ lines: [String], _ common: [String]) async throws -> [Int32] {
        var statuses: [Int32] = []
        for line in lines {
            statuses.append(try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common, input: line + "\n").status)
        }
        return statuses
    }

    @Test("SIGHUP with a bad preferences declaration keeps the previous catalog and says so")
    func sighupKeepsTheOldDeclaration() async throws {
        try await AnyAppTests.App.with(Self.declared) { app in
            let daemon = try await AnyAppTests.startDaemon(app, group: Self.group)
            try app.writeCatalog(["preferences": ["wristReminders": ["feature": "nope"]]])
            daemon.send(SIGHUP)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { daemon.standardError.contains("kept the previous catalog") })
            #expect(daemon.standardError.contains("preferences.wristReminders"), "\(daemon.standardError)")
            #expect(daemon.isRunning)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("The example app's catalog declares its sync toggle, on by default, as the app always had it")
    func exampleDeclaresSync() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let status = try await fixture.run("entitlementctl", ["status", "--format", "json"] + fixture.common)
            let preferences = try AnyAppTests.json(status.standardOutput)["preferences"] as? [String: [String: Bool]]
            #expect(preferences == ["syncEnabled": ["value": true, "effectiveAtNextLaunch": false]], "\(status.standardOutput)")
            #expect(await daemon.stop() == 0)
        }
    }
}
