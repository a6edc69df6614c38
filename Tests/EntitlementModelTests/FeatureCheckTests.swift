import Foundation
import Testing
@testable import Entitlements

/// ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:adding:)`` gives the decisions
/// the gate's rule spells out (``expectedDecisions``), locks at the instant access ends, and
/// never unlocks for a clock wound back.
@Suite struct FeatureCheckTests {
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

    @Test func expiryLocksAtTheInstantAndRollbackDoesNotUnlock() throws {
        let gate = try Self.gate()
        func unlocked(_ snapshot: EntitlementSnapshot?, at clock: Date) -> Bool {
            gate.check("widgets", snapshot: snapshot, wallClock: clock).isUnlocked
        }
        let active = EntitlementSnapshot(
            generation: 1, issuedAt: Self.issuedAt, nextTransition: Self.end,
            entitlements: ["plus": EntitlementStatus(active: true, state: .subscribed, expiresAt: Self.end)])
        #expect(unlocked(active, at: Self.end.addingTimeInterval(-0.001)))
        #expect(!unlocked(active, at: Self.end))
        // Issued after the end: winding the clock back to before the end must not unlock.
        var late = active
        late.issuedAt = Self.end.addingTimeInterval(60)
        #expect(!unlocked(late, at: Self.issuedAt))
        #expect(!unlocked(nil, at: Self.issuedAt))
    }

    /// A negative count (a caller's bug) counts as none everywhere: with an allowance of 0 the
    /// feature stays locked, for `check` and the limits alike.
    @Test func negativeCountsDoNotOpenAnEmptyAllowance() throws {
        let gate = try Self.gate()
        let snapshot = EntitlementSnapshot(generation: 1, issuedAt: Self.issuedAt, nextTransition: nil, entitlements: [:])
        for count in [-1, Int.min] {
            #expect(!gate.check("none", snapshot: snapshot, wallClock: Self.issuedAt, currentCount: count).isUnlocked)
            #expect(!gate.check("none", snapshot: nil, wallClock: Self.issuedAt, currentCount: count).isUnlocked)
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
