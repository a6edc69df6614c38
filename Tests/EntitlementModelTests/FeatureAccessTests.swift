import Foundation
import Testing
@testable import EntitlementModel

/// The prepared access (``FeatureGate/prepared(for:)`` + ``FeatureHandle``) answers exactly what
/// ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:)`` answers, and `check` gives
/// the decisions the gate's rule spells out (``expectedDecisions``).
@Suite struct FeatureAccessTests {
    static let issuedAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let end = issuedAt.addingTimeInterval(86_400)

    /// The sample catalog's features plus a free one, one unlocked by an entitlement no snapshot
    /// names, and one with both allowances.
    static func gate() throws -> FeatureGate {
        var gate = try Fixtures.catalog().featureGate
        let copy = PaywallCopy(title: "t", message: "m", callToAction: "c")
        gate.rules["free"] = FeatureRule(entitlement: nil, paywall: copy)
        gate.rules["elsewhere"] = FeatureRule(entitlement: "pro", freeCount: 1, paywall: copy)
        gate.rules["both"] = FeatureRule(entitlement: "plus", freeCount: 2, freeDays: 7, paywall: copy)
        // A catalog may give an allowance of 0 (`"freeLimit": {"count": 0}`).
        gate.rules["none"] = FeatureRule(entitlement: "plus", freeCount: 0, paywall: copy)
        return gate
    }

    /// `nil` plus snapshots whose `plus` is active until ``end``, lifetime, active but already past
    /// its end at issue time, expired, revoked, in grace, absent.
    static func snapshots() -> [EntitlementSnapshot?] {
        func snapshot(_ status: EntitlementStatus?, issued: Date = issuedAt) -> EntitlementSnapshot {
            EntitlementSnapshot(
                generation: 3, issuedAt: issued, nextTransition: nil, entitlements: status.map { ["plus": $0] } ?? [:])
        }
        return [
            nil,
            snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: end, productId: "m", willRenew: true)),
            snapshot(EntitlementStatus(active: true, state: .purchased, productId: "l")),
            snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: end), issued: end),
            snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: end), issued: end.addingTimeInterval(1)),
            snapshot(EntitlementStatus(active: true, state: .inGracePeriod, expiresAt: end.addingTimeInterval(0.001))),
            snapshot(EntitlementStatus(active: false, state: .expired, productId: "m")),
            snapshot(EntitlementStatus(active: false, state: .revoked, expiresAt: end)),
            snapshot(nil),
            snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: .distantFuture)),
            snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: Date(timeIntervalSinceReferenceDate: .infinity))),
        ]
    }

    /// Around the end (exactly at it, a millisecond either side), a clock wound back before the
    /// issue time, the issue time itself, and the extremes.
    static let clocks: [Date] = [
        .distantPast, issuedAt.addingTimeInterval(-86_400 * 365), issuedAt, end.addingTimeInterval(-0.001), end,
        end.addingTimeInterval(0.001), end.addingTimeInterval(1), .distantFuture, Date(timeIntervalSinceReferenceDate: -.infinity),
        Date(timeIntervalSinceReferenceDate: .infinity),
    ]
    static let counts: [Int?] = [nil, Int.min, -1_000_000, -1, 0, 1, 2, 3, 9, 10, 11, Int.max]
    static let days: [Int?] = [nil, Int.min, -1, 0, 7, 8, 30, 31, Int.max]

    @Test func preparedAnswersMatchCheckEverywhere() throws {
        let gate = try Self.gate()
        let features = gate.rules.keys.sorted() + ["unknown", "", "Widgets"]
        let handles = features.map(gate.handle)
        var compared = 0, unlocked = 0
        for snapshot in Self.snapshots() {
            let access = gate.prepared(for: snapshot)
            #expect(access.generation == snapshot?.generation)
            for (feature, handle) in zip(features, handles) {
                for clock in Self.clocks {
                    for count in Self.counts {
                        for daysAgo in Self.days {
                            let decision = gate.check(feature, snapshot: snapshot, wallClock: clock, currentCount: count, daysAgo: daysAgo)
                            let byHandle = access.isUnlocked(handle, at: clock, currentCount: count, daysAgo: daysAgo)
                            let byName = access.isUnlocked(feature, at: clock, currentCount: count, daysAgo: daysAgo)
                            if byHandle != decision.isUnlocked || byName != decision.isUnlocked {
                                Issue.record(
                                    "\(feature) at \(clock.timeIntervalSinceReferenceDate) count \(String(describing: count)) days \(String(describing: daysAgo)) snapshot \(String(describing: snapshot)): check \(decision), handle \(byHandle), name \(byName)")
                                return
                            }
                            compared += 1
                            if byHandle { unlocked += 1 }
                        }
                    }
                }
            }
        }
        // Both answers occur often, so the comparison says something.
        #expect(compared > 50_000)
        #expect(unlocked > compared / 10 && unlocked < compared * 9 / 10)
    }

    @Test func expiryLocksAtTheInstantAndRollbackDoesNotUnlock() throws {
        let gate = try Self.gate()
        let widgets = gate.handle("widgets")
        let active = EntitlementSnapshot(
            generation: 1, issuedAt: Self.issuedAt, nextTransition: Self.end,
            entitlements: ["plus": EntitlementStatus(active: true, state: .subscribed, expiresAt: Self.end)])
        let access = gate.prepared(for: active)
        #expect(access.isUnlocked(widgets, at: Self.end.addingTimeInterval(-0.001)))
        #expect(!access.isUnlocked(widgets, at: Self.end))
        // Issued after the end: winding the clock back to before the end must not unlock.
        var late = active
        late.issuedAt = Self.end.addingTimeInterval(60)
        #expect(!gate.prepared(for: late).isUnlocked(widgets, at: Self.issuedAt))
        #expect(!gate.prepared(for: nil).isUnlocked(widgets, at: Self.issuedAt))
    }

    @Test func handlesOfAnotherGateOrUnknownFeaturesAreLocked() throws {
        let gate = try Self.gate()
        let snapshot = EntitlementSnapshot(
            generation: 1, issuedAt: Self.issuedAt, nextTransition: nil,
            entitlements: ["plus": EntitlementStatus(active: true, state: .purchased)])
        let access = gate.prepared(for: snapshot)
        #expect(access.isUnlocked(gate.handle("widgets"), at: Self.issuedAt))
        #expect(!access.isUnlocked(gate.handle("nope"), at: Self.issuedAt))
        // Same position, different feature set: refused rather than answered for the wrong feature.
        var other = gate
        other.rules["aaa"] = FeatureRule(entitlement: "pro", paywall: FeatureGate.fallbackCopy)
        #expect(!access.isUnlocked(other.handle("widgets"), at: Self.issuedAt))
        #expect(other.prepared(for: snapshot).isUnlocked(other.handle("widgets"), at: Self.issuedAt))
        // An equal gate built separately resolves the same handles.
        #expect(access.isUnlocked(try Self.gate().handle("widgets"), at: Self.issuedAt))
    }

    /// A negative count (a caller's bug) counts as none everywhere: with an allowance of 0 the
    /// feature stays locked, for `check`, the prepared access and the limits alike.
    @Test func negativeCountsDoNotOpenAnEmptyAllowance() throws {
        let gate = try Self.gate()
        let snapshot = EntitlementSnapshot(generation: 1, issuedAt: Self.issuedAt, nextTransition: nil, entitlements: [:])
        for count in [-1, Int.min] {
            #expect(!gate.check("none", snapshot: snapshot, wallClock: Self.issuedAt, currentCount: count).isUnlocked)
            #expect(!gate.prepared(for: snapshot).isUnlocked(gate.handle("none"), at: Self.issuedAt, currentCount: count))
            #expect(!gate.prepared(for: nil).isUnlocked("none", at: Self.issuedAt, currentCount: count))
            #expect(gate.wouldExceed("none", snapshot: snapshot, wallClock: Self.issuedAt, currentCount: count))
        }
    }

    /// `check`'s decisions, spelt out: who holds the feature, each allowance at and past its
    /// edge, and the reason for every kind of lock.
    @Test func expectedDecisions() throws {
        let copy = PaywallCopy(title: "t", message: "m", callToAction: "c")
        let gate = FeatureGate(rules: [
            "paid": FeatureRule(entitlement: "plus", paywall: copy),
            "counted": FeatureRule(entitlement: "plus", freeCount: 2, paywall: copy),
            "windowed": FeatureRule(entitlement: "plus", freeDays: 7, paywall: copy),
            "free": FeatureRule(entitlement: nil, paywall: copy),
        ])
        func snapshot(_ status: EntitlementStatus?) -> EntitlementSnapshot {
            EntitlementSnapshot(generation: 1, issuedAt: Self.issuedAt, nextTransition: nil, entitlements: status.map { ["plus": $0] } ?? [:])
        }
        let active = snapshot(EntitlementStatus(active: true, state: .subscribed, expiresAt: Self.end))
        let never = snapshot(nil)
        let expired = snapshot(EntitlementStatus(active: false, state: .expired))
        let revoked = snapshot(EntitlementStatus(active: false, state: .revoked))
        let inGrace = snapshot(EntitlementStatus(active: true, state: .inGracePeriod, expiresAt: Self.end))
        func locked(_ feature: String, _ reason: PaywallReason) -> GateDecision {
            .locked(Paywall(feature: feature, reason: reason, copy: feature == "unknown" ? FeatureGate.fallbackCopy : copy))
        }
        let now = Self.issuedAt, late = Self.end
        let rows: [(String, EntitlementSnapshot?, Date, Int?, Int?, GateDecision)] = [
            ("unknown", active, now, nil, nil, locked("unknown", .unknownFeature)),
            ("free", nil, now, nil, nil, .unlocked(remaining: nil)),
            ("paid", active, now, nil, nil, .unlocked(remaining: nil)),
            ("paid", active, late, nil, nil, locked("paid", .expired)),
            ("paid", inGrace, late, nil, nil, locked("paid", .expired)),
            ("paid", never, now, nil, nil, locked("paid", .notEntitled)),
            ("paid", expired, now, nil, nil, locked("paid", .expired)),
            ("paid", revoked, now, nil, nil, locked("paid", .revoked)),
            ("paid", nil, now, nil, nil, locked("paid", .noSnapshot)),
            ("counted", active, now, 5, nil, .unlocked(remaining: nil)),
            ("counted", never, now, 1, nil, .unlocked(remaining: 1)),
            ("counted", never, now, -5, nil, .unlocked(remaining: 2)),
            ("counted", never, now, 2, nil, locked("counted", .limitReached)),
            ("counted", revoked, now, nil, nil, locked("counted", .limitReached)),
            ("counted", nil, now, 0, nil, .unlocked(remaining: 2)),
            ("counted", nil, now, 2, nil, locked("counted", .noSnapshot)),
            ("windowed", never, now, nil, 7, .unlocked(remaining: nil)),
            ("windowed", never, now, nil, 8, locked("windowed", .limitReached)),
            ("windowed", nil, now, nil, 8, locked("windowed", .noSnapshot)),
            ("windowed", never, now, nil, nil, locked("windowed", .notEntitled)),
            ("windowed", revoked, now, nil, nil, locked("windowed", .revoked)),
        ]
        for (feature, snapshot, clock, count, days, expected) in rows {
            let decision = gate.check(feature, snapshot: snapshot, wallClock: clock, currentCount: count, daysAgo: days)
            #expect(decision == expected, "\(feature) count \(String(describing: count)) days \(String(describing: days))")
        }
    }
}
