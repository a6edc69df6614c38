import Entitlements
import StoreKitFormats
import Foundation
import SharedDefaults
import EntitlementDefaults
import Testing
import TestSupport

/// The companion staleness bound as the watch's readers apply it, run as real processes against a
/// published file: `entitlementctl check` on a snapshot the watch's broker published and
/// `widget-renderer --device watch` fail closed once `companionSyncedAt` is the catalog's
/// `companionOfflineLimit` old; a phone's snapshot, and a watch that never synced, are judged
/// from their own events.
@Suite(.timeLimit(.minutes(2))) struct CompanionStalenessTests {
    static let now = "2026-11-22T10:00:00Z"
    static let issued = ISO8601.date(from: now) ?? .distantPast

    /// A lifetime purchase of `plus` issued at ``now``, published by `device`, last synced `daysAgo` days before.
    static func snapshot(device: SnapshotDevice, syncedDaysAgo daysAgo: Double?) -> EntitlementSnapshot {
        var snapshot = EntitlementSnapshot(
            generation: 1, issuedAt: issued, nextTransition: nil,
            entitlements: ["plus": EntitlementStatus(active: true, state: .purchased, productId: "com.irenews.geko.plus.lifetime")])
        snapshot.device = device
        snapshot.companionSyncedAt = daysAgo.map { issued.addingTimeInterval(-$0 * 86_400) }
        return snapshot
    }

    func check(_ fixture: Fixture, _ feature: String, catalog: String = BuiltTools.defaultCatalog) async throws -> BuiltTools.Result {
        try await fixture.run(
            "entitlementctl",
            ["check", feature, "--now", Self.now, "--format", "json", "--container", fixture.container, "--group", fixture.group, "--catalog", catalog])
    }

    @Test("check fails closed on the watch's snapshot past companionOfflineLimit (default P7D), every gated feature")
    func checkOnTheWatch() async throws {
        try await Fixture.with { fixture in
            let defaults = SharedDefaults(suiteName: fixture.group, container: fixture.container)
            try defaults.publish(Self.snapshot(device: .watch, syncedDaysAgo: 6.9))
            #expect(try await check(fixture, "watchApp").status == 0)
            try defaults.publish(Self.snapshot(device: .watch, syncedDaysAgo: 7.1))
            for feature in ["watchApp", "habits", "sync"] {
                let stale = try await check(fixture, feature)
                #expect(stale.status == 1, "\(feature): \(stale.standardOutput)")
                #expect(stale.standardOutput.contains(#""reason":"noSnapshot""#), "\(stale.standardOutput)")
                #expect(stale.standardError.contains("companionOfflineLimit P7D"), "\(stale.standardError)")
            }
            // A free feature needs no purchase, so no news of one.
            #expect(try await check(fixture, "quickTimer").status == 0)
            // Never synced: judged from its own events.
            try defaults.publish(Self.snapshot(device: .watch, syncedDaysAgo: nil))
            #expect(try await check(fixture, "watchApp").status == 0)
            // The phone is not bound by its companion's absence.
            try defaults.publish(Self.snapshot(device: .phone, syncedDaysAgo: 30))
            #expect(try await check(fixture, "watchApp").status == 0)
        }
    }

    @Test("The catalog's companionOfflineLimit sets the bound; a value that is not a positive duration exits 65")
    func catalogSetsTheLimit() async throws {
        try await Fixture.with { fixture in
            try SharedDefaults(suiteName: fixture.group, container: fixture.container).publish(Self.snapshot(device: .watch, syncedDaysAgo: 2))
            #expect(try await check(fixture, "watchApp").status == 0)
            let strict = try Self.catalog(["companionOfflineLimit": "P1D"], in: fixture.root + "/strict")
            #expect(try await check(fixture, "watchApp", catalog: strict).status == 1)
            for bad in ["7 days", "P0D", "-P1D"] {
                let catalog = try Self.catalog(["companionOfflineLimit": bad], in: fixture.root + "/bad-\(bad.count)")
                let refused = try await check(fixture, "watchApp", catalog: catalog)
                #expect(refused.status == 65, "\(bad): \(refused.standardError)")
                #expect(refused.standardError.contains("\(catalog): companionOfflineLimit"), "\(refused.standardError)")
                #expect(refused.standardError.split(separator: "\n").count == 1, "\(refused.standardError)")
            }
        }
    }

    @Test("widget-renderer --device watch locks the app and its complications past the bound, and at it ahead")
    func rendererOnTheWatch() async throws {
        try await Fixture.with { fixture in
            let defaults = SharedDefaults(suiteName: fixture.group, container: fixture.container)
            func render(_ device: String) async throws -> [String] {
                let result = try await fixture.run(
                    "widget-renderer", ["--device", device, "--format", "json", "--now", Self.now] + fixture.common)
                #expect(result.status == 0, "\(result.standardError)")
                return result.standardOutput.split(separator: "\n").map(String.init)
            }
            // Fresh on the watch: unlocked now, locked from the bound (synced 6 days before, P7D).
            try defaults.publish(Self.snapshot(device: .watch, syncedDaysAgo: 6))
            let fresh = try await render("watch")
            #expect(fresh.first?.contains(#""launch":{"locked":false}"#) == true, "\(fresh)")
            let bound = ISO8601.string(from: Self.issued.addingTimeInterval(86_400))
            for line in fresh.dropFirst() {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let entries = try #require(object["entries"] as? [[String: Any]])
                #expect(entries.map { $0["date"] as? String } == [Self.now, bound], "\(line)")
                #expect(entries.map { $0["locked"] as? Bool } == [false, true], "\(line)")
                #expect(entries.last?["reason"] as? String == "noSnapshot", "\(line)")
            }
            // Past the bound: every line locked with noSnapshot, on the watch's snapshot and for the watch's reader.
            for device in [SnapshotDevice.watch, .phone] {
                try defaults.publish(Self.snapshot(device: device, syncedDaysAgo: 8))
                let stale = try await render("watch")
                #expect(stale.first?.contains(#""locked":true,"reason":"noSnapshot""#) == true, "\(stale)")
                #expect(stale.dropFirst().allSatisfy { !$0.contains(#""locked":false"#) }, "\(stale)")
            }
            // Never synced: its own events decide, with no bound ahead.
            try defaults.publish(Self.snapshot(device: .watch, syncedDaysAgo: nil))
            let alone = try await render("watch")
            #expect(alone.allSatisfy { !$0.contains(#""locked":true"#) }, "\(alone)")
        }
    }

    /// The shared catalog with `overrides`, in `directory` beside a copy of its `.storekit` file.
    static func catalog(_ overrides: [String: Any], in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shared = URL(fileURLWithPath: BuiltTools.defaultCatalog).deletingLastPathComponent()
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shared.appendingPathComponent("Catalog.json"))) as? [String: Any])
        catalog.merge(overrides) { $1 }
        let path = directory + "/Catalog.json"
        try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: path))
        try FileManager.default.copyItem(atPath: shared.appendingPathComponent("Geko.storekit").path, toPath: directory + "/Geko.storekit")
        return path
    }
}
