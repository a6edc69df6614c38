import Entitlements
import StoreKitFormats
import Foundation
import Testing
import WatchExtension
import WidgetTimeline

@Suite struct WatchAppTests {
    let app = WatchApp(gate: Fixtures.gate)

    /// A lifetime purchase on a watch that last synced with its phone when the snapshot was issued.
    static let syncedLifetime = {
        var snapshot = Fixtures.lifetime
        snapshot.companionSyncedAt = Fixtures.issuedAt
        return snapshot
    }()

    @Test func freshSubscriptionLaunchesUnlocked() {
        #expect(app.launch(snapshot: Fixtures.subscribed, now: Fixtures.now) == .unlocked)
        #expect(app.launch(from: FixedSnapshotSource(Fixtures.subscribed), now: Fixtures.now) == .unlocked)
    }

    @Test func expiredShowsPaywallWithReason() {
        #expect(app.launch(snapshot: Fixtures.expired, now: Fixtures.now)
            == .paywall(Paywall(feature: "watchApp", reason: .expired, copy: Fixtures.watchCopy)))
        // The replica's own expiry locks offline, with no new snapshot.
        #expect(app.launch(snapshot: Fixtures.subscribed, now: Fixtures.expiry)
            == .paywall(Paywall(feature: "watchApp", reason: .expired, copy: Fixtures.watchCopy)))
    }

    @Test func noSnapshotFailsClosed() {
        #expect(app.launch(from: FixedSnapshotSource(nil), now: Fixtures.now)
            == .paywall(Paywall(feature: "watchApp", reason: .noSnapshot, copy: Fixtures.watchCopy)))
    }

    @Test("Past companionOfflineLimit after the last sync with the phone the watch fails closed")
    func lastSyncOlderThanTheOfflineLimitFailsClosed() throws {
        // Synced a day before the snapshot was issued: the bound counts from the sync, not the issue.
        var lifetime = Self.syncedLifetime
        lifetime.companionSyncedAt = Fixtures.issuedAt.addingTimeInterval(-86_400)
        let fiveDays = Fixtures.issuedAt.addingTimeInterval(5 * 86_400)
        let sixDays = Fixtures.issuedAt.addingTimeInterval(6 * 86_400)
        #expect(app.launch(snapshot: lifetime, now: fiveDays) == .unlocked)
        #expect(app.launch(snapshot: lifetime, now: sixDays)
            == .paywall(Paywall(feature: "watchApp", reason: .noSnapshot, copy: Fixtures.watchCopy)))
        let strict = WatchApp(gate: Fixtures.gate, offlineLimit: try #require(ISO8601Duration("PT1H")))
        #expect(strict.launch(snapshot: Self.syncedLifetime, now: Fixtures.issuedAt.addingTimeInterval(3599)) == .unlocked)
        #expect(strict.launch(snapshot: Self.syncedLifetime, now: Fixtures.issuedAt.addingTimeInterval(3600)) != .unlocked)
    }

    @Test("A watch that never synced with a phone judges from its own events, however old its snapshot")
    func neverSyncedJudgesFromItsOwnEvents() {
        #expect(Fixtures.lifetime.companionSyncedAt == nil)
        #expect(app.launch(snapshot: Fixtures.lifetime, now: Fixtures.issuedAt.addingTimeInterval(30 * 86_400)) == .unlocked)
        #expect(app.launch(snapshot: Fixtures.subscribed, now: Fixtures.expiry)
            == .paywall(Paywall(feature: "watchApp", reason: .expired, copy: Fixtures.watchCopy)))
        let corner = app.complications(snapshot: Fixtures.lifetime, now: Fixtures.now)[.accessoryCorner]
        #expect(corner?.entries.map(\.date) == [Fixtures.now])
    }

    @Test func freeFeatureStaysUnlockedPastTheOfflineLimit() {
        let free = WatchApp(gate: Fixtures.gate, feature: "export")
        #expect(free.launch(snapshot: Self.syncedLifetime, now: Fixtures.issuedAt.addingTimeInterval(30 * 86_400)) == .unlocked)
    }

    @Test func complicationsCoverWatchAccessoryFamiliesAndLockAtTheOfflineLimit() throws {
        let strict = WatchApp(gate: Fixtures.gate, offlineLimit: ISO8601Duration(days: 1))
        var subscribed = Fixtures.subscribed
        subscribed.companionSyncedAt = Fixtures.issuedAt
        let timelines = strict.complications(snapshot: subscribed, now: Fixtures.now)
        #expect(Set(timelines.keys) == Set(DeviceProfile.watch.families))
        let corner = try #require(timelines[.accessoryCorner])
        let limit = Fixtures.issuedAt.addingTimeInterval(86_400)
        #expect(corner.entries.map(\.date) == [Fixtures.now, limit, Fixtures.expiry])
        #expect(corner.entries.map(\.paywall?.reason) == [nil, .noSnapshot, .noSnapshot])
        #expect(corner.policy == .after(limit))
    }

    @Test(arguments: [
        (0.0, "data from just now"), (42, "data from 42 s ago"), (180, "data from 3 min ago"),
        (18_059, "data from 5 h ago"), (172_800, "data from 2 d ago"), (-600, "data from just now"),
    ] as [(Double, String)])
    func ageDescription(seconds: Double, expected: String) {
        #expect(SnapshotAge.description(of: Fixtures.lifetime, now: Fixtures.issuedAt.addingTimeInterval(seconds)) == expected)
    }

    @Test func ageDescriptionWithoutSnapshot() {
        #expect(SnapshotAge.description(of: nil, now: Fixtures.now) == "no data")
    }

    @Test(arguments: TextCharset.allCases)
    func watchScreensMatchGolden(charset: TextCharset) throws {
        let renderer = WatchScreenRenderer(charset: charset, timeZone: .fixed(secondsEastOfUTC: 3600))
        let screens = [
            ("unlocked", Fixtures.subscribed, Fixtures.now),
            ("expired offline", Fixtures.subscribed, Fixtures.expiry),
            ("replica too old", Self.syncedLifetime, Fixtures.issuedAt.addingTimeInterval(8 * 86_400)),
            ("no snapshot", nil, Fixtures.now),
        ] as [(String, EntitlementSnapshot?, Date)]
        let text = screens.map { label, snapshot, now in
            "== \(label)\n" + renderer.render(app: app, snapshot: snapshot, now: now)
        }.joined(separator: "\n\n")
        try Golden.check(text, named: "watch.\(charset.rawValue).txt")
    }

    @Test("The watch's timeline explains the locked (noSnapshot) entry at the offline limit")
    func ageLimitEntryIsExplained() {
        let text = WatchScreenRenderer(timeZone: .fixed(secondsEastOfUTC: 3600)).render(app: app, snapshot: Self.syncedLifetime, now: Fixtures.now)
        let limit = "2026-03-08 13:00:00 +01:00  locked (noSnapshot): the snapshot from 2026-03-01 13:00:00 +01:00 is too old to trust by then"
        #expect(text.contains(limit), "\(text)")
        #expect(text.hasPrefix("watch app · 198×242 pt · generation 7 · now 2026-03-01 13:03:00 +01:00\n┌"), "\(text)")
    }

    @Test("A paywall's message takes a row the layout would otherwise leave empty")
    func launchScreenUsesItsRows() {
        let tooOld = Fixtures.issuedAt.addingTimeInterval(8 * 86_400)
        let screen = WatchScreenRenderer().renderLaunch(
            app.launch(snapshot: Self.syncedLifetime, now: tooOld), snapshot: Self.syncedLifetime, now: tooOld)
        #expect(screen.contains("Track habits…"), "\(screen)")
        let inner = screen.split(separator: "\n").dropFirst().dropLast()
        #expect(inner.filter { $0.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")).isEmpty }.count == 1, "\(screen)")
    }

    @Test func launchScreenShowsReasonCallToActionAndAge() {
        let screen = WatchScreenRenderer().renderLaunch(
            app.launch(snapshot: Fixtures.expired, now: Fixtures.now), snapshot: Fixtures.expired, now: Fixtures.now)
        #expect(screen.contains("reason: expired"))
        #expect(screen.contains("Subscribe on"))
        #expect(screen.contains("data from 3 min"))
        let lines = screen.split(separator: "\n")
        #expect(lines.count == 12)
        #expect(lines.allSatisfy { TextMetrics.width(String($0)) == 20 })
    }
}
