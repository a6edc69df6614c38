import Entitlements
import StoreKitFormats
import Foundation
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

/// `entitlementctl check` with counts, the history window and `--record`, and `entitlementctl
/// status` resolving the launch-time sync mode, run as real processes against a published file.
@Suite(.timeLimit(.minutes(1))) struct FeatureGateCommandTests {
    static let now = "2026-11-22T10:00:00Z"
    static let issued = ISO8601.date(from: now) ?? .distantPast
    static let free = EntitlementSnapshot(generation: 1, issuedAt: issued, nextTransition: nil, entitlements: ["plus": .notPurchased])
    static let premium = EntitlementSnapshot(
        generation: 1, issuedAt: issued, nextTransition: nil,
        entitlements: ["plus": EntitlementStatus(active: true, state: .purchased, productId: "com.irenews.geko.plus.lifetime")])

    func publish(_ snapshot: EntitlementSnapshot, _ fixture: Fixture) throws -> SharedDefaults {
        let defaults = SharedDefaults(suiteName: fixture.group, container: fixture.container)
        try defaults.publish(snapshot)
        return defaults
    }

    func check(_ fixture: Fixture, _ arguments: [String]) async throws -> (status: Int32, json: String) {
        let result = try await fixture.run("entitlementctl", ["check"] + arguments + ["--now", Self.now, "--format", "json"] + fixture.common)
        return (result.status, result.standardOutput.trimmingCharacters(in: .newlines))
    }

    @Test func countsAndWindowInJSONAndExitCodes() async throws {
        try await Fixture.with { fixture in
            _ = try publish(Self.free, fixture)
            #expect(try await check(fixture, ["cards", "--count", "9"]) == (0, #"{"count":9,"feature":"cards","introOfferEligible":true,"limit":10,"locked":false,"presentPaywall":false,"remaining":1}"#))
            let full = try await check(fixture, ["cards", "--count", "10"])
            #expect(full.status == 1)
            #expect(full.json.contains(#""limit":10,"locked":true"#) && full.json.contains(#""reason":"limitReached","remaining":0"#), "\(full.json)")
            #expect(full.json.contains(#""title":"Card Limit Reached""#))
            #expect(try await check(fixture, ["history", "--days-ago", "30"])
                == (0, #"{"count":null,"daysAgo":30,"feature":"history","freeDays":30,"introOfferEligible":true,"limit":null,"locked":false,"presentPaywall":false,"remaining":null}"#))
            let old = try await check(fixture, ["history", "--days-ago", "31"])
            #expect(old.status == 1 && old.json.contains(#""reason":"limitReached""#), "\(old.json)")
            #expect(try await check(fixture, ["aiCoach"]).status == 1)
            #expect(try await check(fixture, ["quickTimer"]) == (0, #"{"count":null,"feature":"quickTimer","introOfferEligible":false,"limit":null,"locked":false,"presentPaywall":false,"remaining":null}"#))
            let negative = try await fixture.run("entitlementctl", ["check", "history", "--days-ago", "-1"] + fixture.common)
            #expect(negative.status == 64)
            // Read-only by default: nothing was recorded anywhere.
            #expect(!FileManager.default.fileExists(atPath: fixture.container + "/Library/Analytics"))
        }
    }

    @Test func premiumHasNoLimit() async throws {
        try await Fixture.with { fixture in
            _ = try publish(Self.premium, fixture)
            #expect(try await check(fixture, ["cards", "--count", "500"]) == (0, #"{"count":500,"feature":"cards","introOfferEligible":true,"limit":null,"locked":false,"presentPaywall":false,"remaining":null}"#))
            #expect(try await check(fixture, ["history", "--days-ago", "900"]).status == 0)
        }
    }

    @Test func recordAppendsPaywallShownForDeniedAndFeatureUsedForAllowedChecks() async throws {
        try await Fixture.with { fixture in
            _ = try publish(Self.free, fixture)
            #expect(try await check(fixture, ["groups", "--count", "3", "--record"]).status == 1)
            #expect(try await check(fixture, ["groups", "--count", "1", "--record"]).status == 0)
            let events = try PaywallAnalyticsLog(container: fixture.container).events()
            // The unlocked check records the feature's use by a free user.
            #expect(events == [
                PaywallEvent(.paywallShown, feature: "groups", reason: .limitReached, time: Self.issued),
                .used("groups", tier: .free, time: Self.issued),
            ])
        }
    }

    @Test func concurrentProcessesRecordWholeLines() async throws {
        try await Fixture.with { fixture in
            _ = try publish(Self.free, fixture)
            let processes = 6, rounds = 3
            // Locked features with long names make each record ~5 KB; the catalog defines them
            // (an undefined feature is a usage error, not a locked answer).
            let features = (0..<processes).map { "feature\($0)" + String(repeating: "x", count: 5_000) }
            let catalog = try Self.catalog(defining: features, in: fixture.root)
            let common = ["--container", fixture.container, "--group", fixture.group, "--catalog", catalog, "--now", Self.now]
            for _ in 0..<rounds {
                let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                    for feature in features {
                        group.addTask { try await fixture.run("entitlementctl", ["check", feature, "--record"] + common).status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 1, count: processes))
            }
            let events = try PaywallAnalyticsLog(container: fixture.container).events()
            #expect(events.count == processes * rounds)
            for feature in features { #expect(events.filter { $0.feature == feature }.count == rounds) }
            #expect(events.allSatisfy { $0.kind == .paywallShown && $0.reason == .notEntitled })
        }
    }

    /// A copy of the sample catalog (and its `.storekit` file) in `directory` that also defines
    /// `features`, each unlocked by `plus`; returns the catalog's path.
    static func catalog(defining features: [String], in directory: String) throws -> String {
        let shared = URL(fileURLWithPath: BuiltTools.defaultCatalog).deletingLastPathComponent()
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shared.appendingPathComponent("Catalog.json"))) as? [String: Any])
        var defined = catalog["features"] as? [String: Any] ?? [:]
        for feature in features {
            defined[feature] = ["entitlement": "plus", "paywall": ["title": "Locked", "message": "Needs Plus.", "callToAction": "Upgrade"]]
        }
        catalog["features"] = defined
        let path = directory + "/Catalog.json"
        try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: path))
        try FileManager.default.copyItem(atPath: shared.appendingPathComponent("Geko.storekit").path, toPath: directory + "/Geko.storekit")
        return path
    }

    /// Each `status` run is a new process: it resolves the mode once, at its launch, from the file.
    @Test func statusShowsTheModeResolvedAtItsLaunch() async throws {
        try await Fixture.with { fixture in
            let defaults = try publish(Self.premium, fixture)
            let first = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(first.status == 0)
            #expect(first.standardOutput.contains("preference syncEnabled (sync): on; at next launch: on\n"), "\(first.standardOutput)")

            try LaunchPreferences.set("syncEnabled", false, in: defaults)
            let second = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(second.standardOutput.contains("preference syncEnabled (sync): off; at next launch: off (turned off)\n"), "\(second.standardOutput)")

            try LaunchPreferences.set("syncEnabled", true, in: defaults)
            var lapsed = Self.free
            lapsed.generation = 2
            try defaults.publish(lapsed)
            let third = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(third.standardOutput.contains("preference syncEnabled (sync): on; at next launch: off (needs premium: notEntitled)\n"), "\(third.standardOutput)")
        }
    }

    @Test func statusShowsIntroductoryOfferEligibilityFromTheSnapshot() async throws {
        try await Fixture.with { fixture in
            let defaults = try publish(Self.free, fixture)
            let open = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(open.standardOutput.contains("introductory offer, group 21400001: eligible\n"), "\(open.standardOutput)")

            var used = Self.free
            used.generation = 2
            used.introOfferIneligibleGroups = ["21400001"]
            try defaults.publish(used)
            let closed = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(closed.standardOutput.contains("introductory offer, group 21400001: not eligible\n"), "\(closed.standardOutput)")
        }
    }
}
