import Foundation
import Testing
@testable import Entitlements

@Suite(.timeLimit(.minutes(1))) struct FeatureGateOnResultTests {
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var lines: [String]
        var feature: String
        var count: Int?
        var expected: GateDecision
        var description: String { name }
    }

    static let gate: FeatureGate = (try? Fixtures.catalog().featureGate) ?? FeatureGate(rules: [:])
    static let habitsCopy = gate.rules["habits"]?.paywall ?? FeatureGate.fallbackCopy
    static let widgetsCopy = gate.rules["widgets"]?.paywall ?? FeatureGate.fallbackCopy
    static let monthly = Fixtures.transaction(id: "m", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")
    static let lapsed = Fixtures.transaction(id: "m", purchased: "2024-11-01T00:00:00Z", expires: "2024-12-01T00:00:00Z")

    static let rows: [Row] = [
        Row(name: "free user, 2 habits: one left", lines: [], feature: "habits", count: 2, expected: .unlocked(remaining: 1)),
        Row(name: "free user, 3 habits: limit reached", lines: [], feature: "habits", count: 3,
            expected: .locked(Paywall(feature: "habits", reason: .limitReached, copy: habitsCopy, introOfferEligible: true))),
        Row(name: "plus subscriber, 3 habits: unlimited", lines: [monthly], feature: "habits", count: 3, expected: .unlocked(remaining: nil)),
        Row(name: "free user: widgets locked", lines: [], feature: "widgets",
            expected: .locked(Paywall(feature: "widgets", reason: .notEntitled, copy: widgetsCopy, introOfferEligible: true))),
        Row(name: "lapsed subscriber: widgets locked as expired", lines: [lapsed], feature: "widgets",
            expected: .locked(Paywall(feature: "widgets", reason: .expired, copy: widgetsCopy))),
        Row(name: "plus subscriber: widgets unlocked", lines: [monthly], feature: "widgets", expected: .unlocked(remaining: nil)),
    ]

    @Test(arguments: rows)
    func gateOnEngineResult(_ row: Row) throws {
        let catalog = try Fixtures.catalog()
        let now = Fixtures.date("2025-01-15T00:00:00Z")
        let result = EntitlementEngine(catalog: catalog).evaluate(FactStore(try Fixtures.events(row.lines)), now: now)
        let decision = catalog.featureGate.check(row.feature, snapshot: result.snapshot(generation: 1), wallClock: now, currentCount: row.count)
        #expect(decision == row.expected)
    }

    @Test func widgetsPaywallCarriesTheCatalogCopy() {
        #expect(Self.widgetsCopy.title == "Widgets need Geko Plus")
    }
}

@Suite struct FeatureGateExtremeCountTests {
    @Test("Extreme counts never trap", arguments: [Int.min, -1, 0, 2, 3, Int.max])
    func extremeCounts(count: Int) {
        let gate = FeatureGate(rules: ["habits": FeatureRule(
            entitlement: "plus", freeCount: 3, paywall: PaywallCopy(title: "t", message: "m", callToAction: "c"))])
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let decision = gate.check("habits", snapshot: nil, wallClock: now, currentCount: count)
        #expect(decision.isUnlocked == (count < 3))
        let remaining = gate.remaining("habits", snapshot: nil, wallClock: now, currentCount: count)
        #expect(remaining == max(0, 3 - max(0, count)))
        #expect(gate.wouldExceed("habits", snapshot: nil, wallClock: now, currentCount: count) == (count >= 3))
    }
}
