import Foundation
import Testing
@testable import EntitlementModel

/// The prepared access (``FeatureGate/prepared(for:)`` + ``FeatureHandle``) answers exactly what
/// ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:)`` answers, and `check` still
/// decides what it decided before it stopped copying rules (``referenceCheck``).
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
                            let reference = Self.referenceCheck(
                                gate, feature, snapshot: snapshot, wallClock: clock, currentCount: count, daysAgo: daysAgo)
                            let byHandle = access.isUnlocked(handle, at: clock, currentCount: count, daysAgo: daysAgo)
                            let byName = access.isUnlocked(feature, at: clock, currentCount: count, daysAgo: daysAgo)
                            if decision != reference || byHandle != decision.isUnlocked || byName != decision.isUnlocked {
                                Issue.record(
                                    "\(feature) at \(clock.timeIntervalSinceReferenceDate) count \(String(describing: count)) days \(String(describing: daysAgo)) snapshot \(String(describing: snapshot)): check \(decision), reference \(reference), handle \(byHandle), name \(byName)")
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

    /// `FeatureGate.check` as it was before it read rules in place (e4631f4), verbatim.
    static func referenceCheck(
        _ gate: FeatureGate, _ feature: String, snapshot: EntitlementSnapshot?, wallClock: Date, currentCount: Int? = nil, daysAgo: Int? = nil
    ) -> GateDecision {
        func isEntitled(_ entitlement: String) -> Bool {
            guard let snapshot else { return false }
            return snapshot.status(of: entitlement).isActive(at: snapshot.effectiveNow(wallClock: wallClock))
        }
        func reason(_ rule: FeatureRule, _ entitlement: String) -> PaywallReason {
            guard let snapshot else { return .noSnapshot }
            if rule.freeCount != nil { return .limitReached }
            switch snapshot.status(of: entitlement).state {
            case .notPurchased: return .notEntitled
            case .revoked: return .revoked
            default: return .expired
            }
        }
        guard let rule = gate.rules[feature] else {
            return .locked(Paywall(feature: feature, reason: .unknownFeature, copy: FeatureGate.fallbackCopy))
        }
        guard let entitlement = rule.entitlement else { return .unlocked(remaining: nil) }
        if isEntitled(entitlement) { return .unlocked(remaining: nil) }
        // As `check` now does: a negative count counts as none (the original overflowed near Int.min).
        if let limit = rule.freeCount, let count = currentCount.map({ max(0, $0) }), count < limit {
            return .unlocked(remaining: limit - count)
        }
        if let window = rule.freeDays, let daysAgo {
            if daysAgo <= window { return .unlocked(remaining: nil) }
            return .locked(Paywall(feature: feature, reason: snapshot == nil ? .noSnapshot : .limitReached, copy: rule.paywall))
        }
        return .locked(Paywall(feature: feature, reason: reason(rule, entitlement), copy: rule.paywall))
    }
}
