import Entitlements
import Foundation
import Testing
import WidgetTimeline

@Suite struct TimelineProviderTests {
    let provider = EntitlementTimelineProvider(gate: Fixtures.gate)
    let context = TimelineProviderContext(family: .systemSmall)

    @Test func subscriptionHasEntryNowAndLockedEntryAtExpiry() throws {
        let timeline = provider.timeline(for: Fixtures.subscribed, in: context, now: Fixtures.now)
        #expect(timeline.entries.map(\.date) == [Fixtures.now, Fixtures.expiry])
        #expect(timeline.entries[0].state == .unlocked(.sample))
        #expect(timeline.entries[1].state == .locked(Fixtures.widgetsPaywall))
        #expect(timeline.policy == .after(Fixtures.expiry))
        #expect(timeline.entries.allSatisfy { $0.snapshotGeneration == 7 && $0.asOf == Fixtures.issuedAt && !$0.isStale })
    }

    @Test func lifetimeIsOneUnlockedEntryThatNeverReloads() {
        let timeline = provider.timeline(for: Fixtures.lifetime, in: context, now: Fixtures.now)
        #expect(timeline.entries.count == 1)
        #expect(timeline.entries.first?.state == .unlocked(.sample))
        #expect(timeline.policy == .never)
    }

    @Test func lockedWithNothingPendingNeverReloads() {
        let timeline = provider.timeline(for: Fixtures.expired, in: context, now: Fixtures.now)
        #expect(timeline.entries.map(\.paywall?.reason) == [.expired])
        #expect(timeline.policy == .never)
    }

    @Test func noSnapshotIsLockedNoSnapshot() {
        let timeline = provider.timeline(for: nil, in: context, now: Fixtures.now)
        #expect(timeline.entries.count == 1)
        let entry = timeline.entries[0]
        #expect(entry.date == Fixtures.now)
        #expect(entry.paywall?.reason == .noSnapshot)
        #expect(entry.snapshotGeneration == nil && entry.asOf == nil && !entry.isStale)
        #expect(timeline.policy == .never)
    }

    @Test func woundBackClockEvaluatesAtIssuedAt() {
        // Expired an hour before the snapshot was issued; the wall clock claims a time before that.
        let snapshot = Fixtures.snapshot(EntitlementStatus(
            active: true, state: .subscribed, expiresAt: Fixtures.issuedAt.addingTimeInterval(-3600)))
        let woundBack = Fixtures.issuedAt.addingTimeInterval(-2 * 86_400)
        let timeline = provider.timeline(for: snapshot, in: context, now: woundBack)
        #expect(timeline.entries.map(\.paywall?.reason) == [.expired])
        #expect(timeline.entries.first?.date == woundBack)
        #expect(timeline.policy == .never)
    }

    @Test func woundBackClockKeepsFutureExpiry() {
        let timeline = provider.timeline(
            for: Fixtures.subscribed, in: context, now: Fixtures.issuedAt.addingTimeInterval(-86_400))
        #expect(timeline.entries.map(\.isLocked) == [false, true])
        #expect(timeline.policy == .after(Fixtures.expiry))
    }

    @Test func expiryBeyondHorizonGetsReloadButNoEntry() {
        let far = Fixtures.issuedAt.addingTimeInterval(300 * 86_400)
        let snapshot = Fixtures.snapshot(
            EntitlementStatus(active: true, state: .subscribed, expiresAt: far), nextTransition: far)
        let timeline = provider.timeline(for: snapshot, in: context, now: Fixtures.now)
        #expect(timeline.entries.count == 1)
        #expect(timeline.policy == .after(far))
    }

    @Test func everyTransitionInsideHorizonGetsAnEntry() {
        // Another entitlement changes first (nextTransition), then plus expires.
        let next = Fixtures.date("2026-03-02T00:00:00Z")
        let snapshot = Fixtures.snapshot(Fixtures.subscribed.entitlements["plus"] ?? .notPurchased, nextTransition: next)
        let timeline = provider.timeline(for: snapshot, in: context, now: Fixtures.now)
        #expect(timeline.entries.map(\.date) == [Fixtures.now, next, Fixtures.expiry])
        #expect(timeline.entries.map(\.isLocked) == [false, false, true])
        #expect(timeline.policy == .after(next))
        // The daemon should have republished at `next`: entries after it are stale, "as of" issuedAt.
        #expect(timeline.entries.map(\.isStale) == [false, false, true])
    }

    @Test("Transitions given in any order come out ascending, once each, only those after now")
    func transitionsAreOrderedDistinctAndFuture() {
        // validUntil before the expiry, nextTransition equal to the expiry, and each order of the
        // three: every timeline is the same.
        let early = Fixtures.date("2026-03-03T00:00:00Z")
        let past = Fixtures.date("2026-03-01T12:01:00Z")
        for (next, validUntil) in [(Fixtures.expiry, early), (early, Fixtures.expiry), (Fixtures.expiry, Fixtures.expiry), (past, early)] {
            let snapshot = Fixtures.snapshot(Fixtures.subscribed.entitlements["plus"] ?? .notPurchased, nextTransition: next)
            let timeline = provider.timeline(for: snapshot, in: context, now: Fixtures.now, validUntil: validUntil)
            let expected = [Fixtures.now] + Set([next, validUntil, Fixtures.expiry]).filter { $0 > Fixtures.now }.sorted()
            #expect(timeline.entries.map(\.date) == expected, "next \(next), validUntil \(validUntil)")
            #expect(timeline.policy == .after(expected[1]))
        }
    }

    @Test func nowPastNextTransitionIsStaleButStillUnlocked() throws {
        let next = Fixtures.date("2026-03-02T00:00:00Z")
        let snapshot = Fixtures.snapshot(Fixtures.subscribed.entitlements["plus"] ?? .notPurchased, nextTransition: next)
        let later = next.addingTimeInterval(60)
        let entry = try #require(provider.timeline(for: snapshot, in: context, now: later).entries.first)
        #expect(entry.isStale)
        #expect(entry.asOf == Fixtures.issuedAt)
        #expect(entry.state == .unlocked(.sample))
    }

    @Test func validUntilLocksWithNoSnapshotReason() {
        let validUntil = Fixtures.date("2026-03-03T12:00:00Z")
        let timeline = provider.timeline(for: Fixtures.subscribed, in: context, now: Fixtures.now, validUntil: validUntil)
        #expect(timeline.entries.map(\.date) == [Fixtures.now, validUntil, Fixtures.expiry])
        #expect(timeline.entries.map(\.paywall?.reason) == [nil, .noSnapshot, .noSnapshot])
        #expect(timeline.policy == .after(validUntil))
    }

    @Test func previewShowsSampleContentEvenWithoutSnapshot() {
        let preview = TimelineProviderContext(family: .systemMedium, isPreview: true)
        #expect(provider.snapshot(for: nil, in: preview, now: Fixtures.now).state == .unlocked(.sample))
        #expect(provider.snapshot(for: nil, in: context, now: Fixtures.now).paywall?.reason == .noSnapshot)
        #expect(provider.snapshot(for: Fixtures.subscribed, in: context, now: Fixtures.now).state == .unlocked(.sample))
    }

    @Test func placeholderIsRedacted() {
        #expect(provider.placeholder(in: context).state == .placeholder)
        #expect(!provider.placeholder(in: context).isLocked)
    }

    @Test func unknownFeatureFailsClosed() {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate, feature: "nope")
            .timeline(for: Fixtures.lifetime, in: context, now: Fixtures.now)
        #expect(timeline.entries.map(\.paywall?.reason) == [.unknownFeature])
    }

    /// Whatever the feature (gated, free, unknown) and the snapshot, every entry shows what the
    /// gate's public `check` decides for the feature at the entry's date (with no snapshot once
    /// past `validUntil`), and the transitions come from the feature's own entitlement.
    @Test(arguments: ["widgets", "export", "nope"])
    func everyEntryIsTheGatesDecisionAtItsDate(feature: String) {
        let provider = EntitlementTimelineProvider(gate: Fixtures.gate, feature: feature)
        let soon = Fixtures.now.addingTimeInterval(3600)
        let snapshots: [EntitlementSnapshot?] = [
            nil, Fixtures.subscribed, Fixtures.lifetime, Fixtures.expired,
            Fixtures.snapshot(Fixtures.subscribed.status(of: "plus"), nextTransition: soon),
            EntitlementSnapshot(generation: 3, issuedAt: Fixtures.issuedAt, nextTransition: nil, entitlements: [:]),
        ]
        for snapshot in snapshots {
            for validUntil in [nil, soon, Fixtures.expiry.addingTimeInterval(60)] {
                let timeline = provider.timeline(for: snapshot, in: context, now: Fixtures.now, validUntil: validUntil)
                for entry in timeline.entries {
                    let trusted = snapshot.map { snapshot in validUntil.map { limit in snapshot.effectiveNow(wallClock: entry.date) < limit } ?? true } ?? false
                    let decision = Fixtures.gate.check(feature, snapshot: trusted ? snapshot : nil, wallClock: entry.date)
                    switch decision {
                    case .unlocked: #expect(entry.state == .unlocked(.sample), "\(feature) \(entry.date)")
                    case .locked(let paywall): #expect(entry.state == .locked(paywall), "\(feature) \(entry.date)")
                    }
                }
                let gated = Fixtures.gate.rules[feature]?.entitlement != nil
                let expects = snapshot.map { snapshot in
                    let plus = snapshot.status(of: "plus")
                    return snapshot.nextTransition == Fixtures.expiry || (gated && plus.active && plus.expiresAt == Fixtures.expiry)
                } ?? false
                #expect(timeline.entries.contains { $0.date == Fixtures.expiry } == expects, "\(feature) \(String(describing: snapshot?.nextTransition))")
            }
        }
    }

    @Test func contextDefaultsToFamilySize() {
        #expect(TimelineProviderContext(family: .systemMedium).displaySize == DisplaySize(width: 364, height: 170))
        #expect(!TimelineProviderContext(family: .systemMedium).isPreview)
    }
}

@Suite struct TimelineEntrySelectionTests {
    static let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
        .timeline(for: Fixtures.subscribed, in: TimelineProviderContext(family: .systemSmall), now: Fixtures.now)

    @Test(arguments: [
        (Fixtures.now.addingTimeInterval(-1), nil),
        (Fixtures.now, false),
        (Fixtures.expiry.addingTimeInterval(-0.001), false),
        (Fixtures.expiry, true),
        (Fixtures.expiry.addingTimeInterval(86_400 * 365), true),
    ] as [(Date, Bool?)])
    func latestEntryNotAfterDate(date: Date, locked: Bool?) {
        #expect(Self.timeline.entry(at: date)?.isLocked == locked)
    }

    @Test func emptyTimelineSelectsNothing() {
        #expect(Timeline(entries: [], policy: .never).entry(at: Fixtures.now) == nil)
    }
}

@Suite struct DeviceProfileTests {
    @Test func phoneFamilies() {
        #expect(DeviceProfile.phone.families == [
            .systemSmall, .systemMedium, .systemLarge, .accessoryCircular, .accessoryRectangular, .accessoryInline,
        ])
    }

    @Test func tabletFamilies() {
        #expect(DeviceProfile.tablet.families == [
            .systemSmall, .systemMedium, .systemLarge, .systemExtraLarge,
            .accessoryCircular, .accessoryRectangular, .accessoryInline,
        ])
    }

    @Test func watchFamilies() {
        #expect(DeviceProfile.watch.families == [.accessoryCircular, .accessoryRectangular, .accessoryInline, .accessoryCorner])
        #expect(!DeviceProfile.watch.supports(.systemSmall))
    }

    @Test(arguments: [
        (WidgetFamily.systemSmall, 170.0, 170.0), (.systemMedium, 364, 170), (.systemLarge, 364, 382),
        (.systemExtraLarge, 715, 330), (.accessoryCircular, 76, 76), (.accessoryRectangular, 172, 76),
        (.accessoryInline, 257, 26), (.accessoryCorner, 40, 40),
    ])
    func displaySizes(family: WidgetFamily, width: Double, height: Double) {
        #expect(family.displaySize == DisplaySize(width: width, height: height))
    }
}
