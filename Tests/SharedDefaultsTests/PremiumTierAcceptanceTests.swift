import Entitlements
import Foundation
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

/// What a single premium tier (entitlement `plus` of the sample catalog) must give a user: full
/// access when subscribed, a clear paywall when free, a trial that says so and ends gracefully,
/// changes seen without a restart, and the last good snapshot kept while offline. Each against the
/// real engine, the published shared file and the feature gate.
@Suite(.timeLimit(.minutes(1))) struct PremiumTierAcceptanceTests {
    static let now = SampleCatalog.date("2025-01-15T00:00:00Z")
    static let subscriber = [SampleCatalog.subscription(id: "s", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")]
    static let trial = [SampleCatalog.subscription(id: "t", purchased: "2025-01-10T00:00:00Z", expires: "2025-01-17T00:00:00Z", trial: true)]

    /// Features only premium opens (an entitlement and no free allowance).
    static func premiumOnly(_ gate: FeatureGate) -> [String] {
        gate.rules.filter { $0.value.entitlement != nil && $0.value.freeCount == nil && $0.value.freeDays == nil }.keys.sorted()
    }

    @Test func premiumSubscriberHasFullAccessWithoutRestrictions() throws {
        let gate = try SampleCatalog.load().featureGate
        let snapshot = try SampleCatalog.snapshot(Self.subscriber, now: Self.now)
        for feature in gate.rules.keys.sorted() {
            #expect(gate.check(feature, snapshot: snapshot, wallClock: Self.now, currentCount: 10_000, daysAgo: 10_000)
                == .unlocked(remaining: nil), "\(feature)")
            #expect(gate.limit(feature, snapshot: snapshot, wallClock: Self.now) == nil, "\(feature)")
        }
    }

    @Test func freeUserIsRestrictedWithClearIndicationOfPremiumRequirement() throws {
        let gate = try SampleCatalog.load().featureGate
        let snapshot = try SampleCatalog.snapshot([], now: Self.now)
        let premium = Self.premiumOnly(gate)
        #expect(premium.count >= 6, "got \(premium)")
        for feature in premium {
            let paywall = try #require(gate.check(feature, snapshot: snapshot, wallClock: Self.now).paywall, "\(feature)")
            #expect(paywall.reason == .notEntitled)
            #expect(paywall.copy != FeatureGate.fallbackCopy && !paywall.copy.title.isEmpty && !paywall.copy.callToAction.isEmpty)
            #expect(paywall.deepLink == "app://paywall?feature=\(feature)&reason=notEntitled")
        }
        // The free tier (quick timer, articles) stays open.
        #expect(gate.check("quickTimer", snapshot: snapshot, wallClock: Self.now).isUnlocked)
        #expect(gate.check("articles", snapshot: snapshot, wallClock: Self.now).isUnlocked)
    }

    @Test func trialGrantsTemporaryAccessToAllPremiumFeaturesAndSaysItIsATrial() throws {
        let gate = try SampleCatalog.load().featureGate
        let snapshot = try SampleCatalog.snapshot(Self.trial, now: Self.now)
        for feature in gate.rules.keys.sorted() {
            #expect(gate.check(feature, snapshot: snapshot, wallClock: Self.now, currentCount: 50).isUnlocked, "\(feature)")
        }
        // What the UI shows: a trial, and when it ends.
        let plus = snapshot.status(of: "plus")
        #expect(plus.periodType == .trial)
        #expect(plus.expiresAt == SampleCatalog.date("2025-01-17T00:00:00Z"))
        #expect(snapshot.nextTransition == plus.expiresAt)
    }

    @Test func expiredTrialRevokesAccessGracefullyWithUpgradePrompts() throws {
        let gate = try SampleCatalog.load().featureGate
        // The snapshot published during the trial, read after the trial's end without a new publish.
        let snapshot = try SampleCatalog.snapshot(Self.trial, now: Self.now)
        let after = SampleCatalog.date("2025-01-17T00:00:01Z")
        for feature in Self.premiumOnly(gate) {
            let paywall = try #require(gate.check(feature, snapshot: snapshot, wallClock: after).paywall, "\(feature)")
            #expect(paywall.reason == .expired)
            #expect(paywall.copy == gate.rules[feature]?.paywall)
        }
        // Graceful: the free tier and the free allowances still work.
        #expect(gate.check("articles", snapshot: snapshot, wallClock: after).isUnlocked)
        #expect(gate.check("habits", snapshot: snapshot, wallClock: after, currentCount: 2) == .unlocked(remaining: 1))
        #expect(gate.check("history", snapshot: snapshot, wallClock: after, daysAgo: 7).isUnlocked)
        // And the republished snapshot (what the daemon writes at the transition) says the same.
        let republished = try SampleCatalog.snapshot(Self.trial, now: after, generation: 2)
        #expect(gate.check("aiCoach", snapshot: republished, wallClock: after).paywall?.reason == .expired)
    }

    @Test func accessUpdatesWithoutRestartWhenTheSubscriptionChanges() throws {
        try withTemporaryDirectory { container in
            let gate = try SampleCatalog.load().featureGate
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            // The "app" creates its reader once and never re-creates it.
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            try writer.publish(try SampleCatalog.snapshot([], now: Self.now, generation: 1))
            #expect(gate.check("aiCoach", snapshot: reader.refresh().snapshot, wallClock: Self.now).paywall?.reason == .notEntitled)
            // A purchase is published by another writer: the same reader sees it on its next look.
            try writer.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now, generation: 2))
            let outcome = reader.refresh()
            #expect(outcome == .updated(try SampleCatalog.snapshot(Self.subscriber, now: Self.now, generation: 2)))
            #expect(gate.check("aiCoach", snapshot: outcome.snapshot, wallClock: Self.now).isUnlocked)
        }
    }

    @Test func cachedEntitlementsKeepFeaturesAvailableOffline() throws {
        try withTemporaryDirectory { container in
            let gate = try SampleCatalog.load().featureGate
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            try writer.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now))
            #expect(gate.check("aiCoach", snapshot: reader.refresh().snapshot, wallClock: Self.now).isUnlocked)
            let later = SampleCatalog.date("2025-01-20T00:00:00Z")

            // The shared file disappears: the last good snapshot still answers.
            try FileManager.default.removeItem(atPath: reader.path)
            let missing = reader.refresh()
            guard case .missing = missing else { Issue.record("expected .missing, got \(missing)"); return }
            #expect(gate.check("aiCoach", snapshot: missing.snapshot, wallClock: later).isUnlocked)

            // A corrupt file appears: refused, and the last good snapshot still answers.
            try Fixture.writeRaw(Array("<?xml version=\"1.0\"?><plist><dict><key>torn".utf8), to: reader.path)
            let corrupt = reader.refresh()
            guard case .rejected = corrupt else { Issue.record("expected .rejected, got \(corrupt)"); return }
            #expect(gate.check("aiCoach", snapshot: corrupt.snapshot, wallClock: later).isUnlocked)

            // The cache is bounded by the entitlement itself: past its expiry the feature locks.
            #expect(gate.check("aiCoach", snapshot: corrupt.snapshot, wallClock: SampleCatalog.date("2025-02-01T00:00:01Z")).paywall?.reason == .expired)
            // A process with no cached snapshot fails closed on the same corrupt file.
            let fresh = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(gate.check("aiCoach", snapshot: fresh.refresh().snapshot, wallClock: later).paywall?.reason == .noSnapshot)
        }
    }

    /// Every check of a long run of mixed features and counts answers the same for one loaded
    /// snapshot (a widget or an app checks on every draw). How fast a check is, is the benchmark's
    /// row "feature check on a loaded snapshot", not a bound timed here.
    @Test func repeatedAccessChecksAnswerTheSame() throws {
        let gate = try SampleCatalog.load().featureGate
        let snapshot = try SampleCatalog.snapshot(Self.subscriber, now: Self.now)
        let features = gate.rules.keys.sorted()
        let iterations = 100_000
        var unlocked = 0
        for index in 0..<iterations {
            if gate.check(features[index % features.count], snapshot: snapshot, wallClock: Self.now, currentCount: index % 20).isUnlocked {
                unlocked += 1
            }
        }
        #expect(unlocked == iterations)
    }
}
