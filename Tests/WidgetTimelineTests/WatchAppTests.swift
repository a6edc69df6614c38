import EntitlementModel
import Foundation
import Testing
import WatchExtension
import WidgetTimeline

@Suite struct WatchAppTests {
    let app = WatchApp(gate: Fixtures.gate)

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

    @Test func replicaOlderThanMaximumAgeFailsClosed() {
        let lifetime = Fixtures.lifetime
        let sixDays = Fixtures.issuedAt.addingTimeInterval(6 * 86_400)
        let eightDays = Fixtures.issuedAt.addingTimeInterval(8 * 86_400)
        #expect(app.launch(snapshot: lifetime, now: sixDays) == .unlocked)
        #expect(app.launch(snapshot: lifetime, now: eightDays)
            == .paywall(Paywall(feature: "watchApp", reason: .noSnapshot, copy: Fixtures.watchCopy)))
        let strict = WatchApp(gate: Fixtures.gate, policy: ReplicaPolicy(maximumAge: 3600))
        #expect(strict.launch(snapshot: lifetime, now: Fixtures.issuedAt.addingTimeInterval(3599)) == .unlocked)
        #expect(strict.launch(snapshot: lifetime, now: Fixtures.issuedAt.addingTimeInterval(3600)) != .unlocked)
    }

    @Test func freeFeatureStaysUnlockedWithOldReplica() {
        let free = WatchApp(gate: Fixtures.gate, feature: "export")
        #expect(free.launch(snapshot: Fixtures.lifetime, now: Fixtures.issuedAt.addingTimeInterval(30 * 86_400)) == .unlocked)
    }

    @Test func complicationsCoverWatchAccessoryFamiliesAndLockAtAgeLimit() throws {
        let strict = WatchApp(gate: Fixtures.gate, policy: ReplicaPolicy(maximumAge: 86_400))
        let timelines = strict.complications(snapshot: Fixtures.subscribed, now: Fixtures.now)
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
        #expect(ReplicaPolicy.ageDescription(of: Fixtures.lifetime, now: Fixtures.issuedAt.addingTimeInterval(seconds)) == expected)
    }

    @Test func ageDescriptionWithoutSnapshot() {
        #expect(ReplicaPolicy.ageDescription(of: nil, now: Fixtures.now) == "no data")
    }

    @Test(arguments: TextCharset.allCases)
    func watchScreensMatchGolden(charset: TextCharset) throws {
        let renderer = WatchScreenRenderer(charset: charset, timeZone: .fixed(secondsEastOfUTC: 3600))
        let screens = [
            ("unlocked", Fixtures.subscribed, Fixtures.now),
            ("expired offline", Fixtures.subscribed, Fixtures.expiry),
            ("replica too old", Fixtures.lifetime, Fixtures.issuedAt.addingTimeInterval(8 * 86_400)),
            ("no snapshot", nil, Fixtures.now),
        ] as [(String, EntitlementSnapshot?, Date)]
        let text = screens.map { label, snapshot, now in
            "== \(label)\n" + renderer.render(app: app, snapshot: snapshot, now: now)
        }.joined(separator: "\n\n")
        try Golden.check(text, named: "watch.\(charset.rawValue).txt")
    }

    @Test("The watch's timeline explains the locked (noSnapshot) entry at the replica's age limit")
    func ageLimitEntryIsExplained() {
        let text = WatchScreenRenderer(timeZone: .fixed(secondsEastOfUTC: 3600)).render(app: app, snapshot: Fixtures.lifetime, now: Fixtures.now)
        let limit = "2026-03-08 13:00:00 +01:00  locked (noSnapshot): the snapshot from 2026-03-01 13:00:00 +01:00 is too old to trust by then"
        #expect(text.contains(limit), "\(text)")
        #expect(text.hasPrefix("watch app · 198×242 pt · generation 7 · now 2026-03-01 13:03:00 +01:00\n┌"), "\(text)")
    }

    @Test("A paywall's message takes a row the layout would otherwise leave empty")
    func launchScreenUsesItsRows() {
        let tooOld = Fixtures.issuedAt.addingTimeInterval(8 * 86_400)
        let screen = WatchScreenRenderer().renderLaunch(
            app.launch(snapshot: Fixtures.lifetime, now: tooOld), snapshot: Fixtures.lifetime, now: tooOld)
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
