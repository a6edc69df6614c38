import Foundation
import Testing
@testable import Entitlements

/// The free tier's limits in the sample catalog: counts (3 habits, 10 collections, 10 cards, 3 groups)
/// with `remaining`, `wouldExceed` and the typed limit error, and the 30-day history window.
@Suite(.timeLimit(.minutes(1))) struct FeatureLimitTests {
    static let now = Fixtures.date("2025-01-15T00:00:00Z")

    /// The snapshot the engine publishes for `lines` at ``now``.
    static func snapshot(_ lines: [String]) throws -> EntitlementSnapshot {
        let catalog = try Fixtures.catalog()
        return EntitlementEngine(catalog: catalog).evaluate(FactStore(try Fixtures.events(lines)), now: now).snapshot(generation: 1)
    }

    static let free: [String] = []
    static let monthly = [Fixtures.transaction(id: "m", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")]
    static let lifetime = [Fixtures.transaction(id: "l", product: Fixtures.lifetime, purchased: "2024-06-01T00:00:00Z")]
    static let lapsed = [Fixtures.transaction(id: "m", purchased: "2024-11-01T00:00:00Z", expires: "2024-12-01T00:00:00Z")]

    struct Limit: Sendable, CustomStringConvertible {
        var feature: String
        var limit: Int
        var seedTitle: String
        var description: String { "\(feature) free limit \(limit)" }
    }

    static let sampleLimits: [Limit] = [
        Limit(feature: "habits", limit: 3, seedTitle: "Track unlimited habits"),
        Limit(feature: "collections", limit: 10, seedTitle: "Unlock Unlimited Collections"),
        Limit(feature: "groups", limit: 3, seedTitle: "Join Unlimited Groups"),
        Limit(feature: "cards", limit: 10, seedTitle: "Card Limit Reached"),
    ]

    @Test(arguments: sampleLimits)
    func freeUserGetsTheCatalogAllowance(_ row: Limit) throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(Self.free)
        #expect(gate.limit(row.feature, snapshot: snapshot, wallClock: Self.now) == row.limit)
        // One below the limit: one left, adding one fits, adding two does not.
        let below = row.limit - 1
        #expect(gate.remaining(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: below) == 1)
        #expect(!gate.wouldExceed(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: below))
        #expect(gate.wouldExceed(row.feature, adding: 2, snapshot: snapshot, wallClock: Self.now, currentCount: below))
        try gate.ensureCanAdd(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: below)
        #expect(gate.check(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: below) == .unlocked(remaining: 1))
        // At the limit: nothing left, and the typed error carries the numbers and the catalog's copy.
        #expect(gate.remaining(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: row.limit) == 0)
        #expect(gate.wouldExceed(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: row.limit))
        let error = try #require(throws: FeatureLimitError.self) {
            try gate.ensureCanAdd(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: row.limit)
        }
        #expect(error.feature == row.feature && error.current == row.limit && error.limit == row.limit && error.remaining == 0)
        #expect(error.paywall.reason == .limitReached)
        #expect(error.paywall.copy.title == row.seedTitle)
        #expect(gate.check(row.feature, snapshot: snapshot, wallClock: Self.now, currentCount: row.limit).paywall?.reason == .limitReached)
    }

    /// Each of the three products (two subscriptions and the non-consumable) means unlimited.
    @Test(arguments: sampleLimits.map(\.feature), [monthly, lifetime])
    func premiumIsUnlimited(_ feature: String, _ lines: [String]) throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(lines)
        #expect(gate.limit(feature, snapshot: snapshot, wallClock: Self.now) == nil)
        #expect(gate.remaining(feature, snapshot: snapshot, wallClock: Self.now, currentCount: 1_000) == nil)
        #expect(!gate.wouldExceed(feature, adding: 500, snapshot: snapshot, wallClock: Self.now, currentCount: 1_000))
        try gate.ensureCanAdd(feature, adding: 500, snapshot: snapshot, wallClock: Self.now, currentCount: 1_000)
    }

    /// Adding a batch (of cards, say) that does not fit is refused whole, and the error says how many would.
    @Test func batchThatDoesNotFitReportsWhatRemains() throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(Self.free)
        try gate.ensureCanAdd("cards", adding: 3, snapshot: snapshot, wallClock: Self.now, currentCount: 7)
        let error = try #require(throws: FeatureLimitError.self) {
            try gate.ensureCanAdd("cards", adding: 4, snapshot: snapshot, wallClock: Self.now, currentCount: 7)
        }
        #expect(error == FeatureLimitError(
            feature: "cards", current: 7, limit: 10, remaining: 3, adding: 4, paywall: error.paywall))
        #expect(error.description.contains("adding 4 would exceed the limit of 10 (7 used, 3 remaining)"))
        // Over the limit already (limit lowered, or items added while premium): remaining is 0, not negative.
        #expect(gate.remaining("cards", snapshot: snapshot, wallClock: Self.now, currentCount: 14) == 0)
    }

    @Test func lapsedSubscriberFallsBackToTheFreeAllowance() throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(Self.lapsed)
        #expect(gate.limit("collections", snapshot: snapshot, wallClock: Self.now) == 10)
        #expect(gate.remaining("collections", snapshot: snapshot, wallClock: Self.now, currentCount: 25) == 0)
    }

    /// Paid-only features allow nothing to free users, free features are unlimited, unknown features allow nothing.
    @Test func limitsOfFeaturesWithoutAnAllowance() throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(Self.free)
        #expect(gate.limit("customTags", snapshot: snapshot, wallClock: Self.now) == 0)
        #expect(gate.limit("quickTimer", snapshot: snapshot, wallClock: Self.now) == nil)
        #expect(gate.limit("teleport", snapshot: snapshot, wallClock: Self.now) == 0)
        let error = try #require(throws: FeatureLimitError.self) {
            try gate.ensureCanAdd("customTags", snapshot: snapshot, wallClock: Self.now, currentCount: 0)
        }
        #expect(error.paywall.reason == .notEntitled)
        #expect(error.paywall.copy.title == "Organize with Custom Tags")
        let unknown = try #require(throws: FeatureLimitError.self) {
            try gate.ensureCanAdd("teleport", snapshot: snapshot, wallClock: Self.now, currentCount: 0)
        }
        #expect(unknown.paywall.reason == .unknownFeature)
    }

    /// Without a snapshot the free allowance still applies, and the reason says why paid access is missing.
    @Test func noSnapshotKeepsTheFreeAllowance() throws {
        let gate = try Fixtures.catalog().featureGate
        #expect(gate.remaining("groups", snapshot: nil, wallClock: Self.now, currentCount: 1) == 2)
        let error = try #require(throws: FeatureLimitError.self) {
            try gate.ensureCanAdd("groups", snapshot: nil, wallClock: Self.now, currentCount: 3)
        }
        #expect(error.paywall.reason == .noSnapshot)
    }

    struct Window: Sendable, CustomStringConvertible {
        var name: String
        var lines: [String]
        var daysAgo: Int?
        var expected: PaywallReason?
        var description: String { name }
    }

    static let windows: [Window] = [
        Window(name: "free, today", lines: free, daysAgo: 0, expected: nil),
        Window(name: "free, 30 days ago (inside the window)", lines: free, daysAgo: 30, expected: nil),
        Window(name: "free, 31 days ago", lines: free, daysAgo: 31, expected: .limitReached),
        Window(name: "free, a year ago", lines: free, daysAgo: 365, expected: .limitReached),
        Window(name: "lapsed, 31 days ago", lines: lapsed, daysAgo: 31, expected: .limitReached),
        Window(name: "subscriber, a year ago", lines: monthly, daysAgo: 365, expected: nil),
        Window(name: "lifetime, ten years ago", lines: lifetime, daysAgo: 3_650, expected: nil),
        // Without daysAgo the question is "the full history": the whole feature, not a window of it.
        Window(name: "free, whole feature", lines: free, daysAgo: nil, expected: .notEntitled),
        Window(name: "lapsed, whole feature", lines: lapsed, daysAgo: nil, expected: .expired),
    ]

    @Test(arguments: windows)
    func historyWindowIsThirtyDays(_ row: Window) throws {
        let catalog = try Fixtures.catalog()
        let decision = catalog.featureGate.check(
            "history", snapshot: try Self.snapshot(row.lines), wallClock: Self.now, daysAgo: row.daysAgo)
        #expect(decision.paywall?.reason == row.expected, "got \(decision)")
        if let paywall = decision.paywall {
            #expect(paywall.copy == catalog.featureGate.rules["history"]?.paywall)
        }
    }

    @Test func historyWindowWithoutSnapshotStillOpensRecentDays() throws {
        let gate = try Fixtures.catalog().featureGate
        #expect(gate.check("history", snapshot: nil, wallClock: Self.now, daysAgo: 3).isUnlocked)
        #expect(gate.check("history", snapshot: nil, wallClock: Self.now, daysAgo: 31).paywall?.reason == .noSnapshot)
    }

    /// The sample catalog's two tiers: the free tier's features are open to everyone, the premium ones are not.
    @Test func freeAndPremiumTiersAreInTheSampleCatalog() throws {
        let gate = try Fixtures.catalog().featureGate
        let snapshot = try Self.snapshot(Self.free)
        for feature in ["quickTimer", "articles"] {
            #expect(gate.rules[feature]?.entitlement == nil, "\(feature)")
            #expect(gate.check(feature, snapshot: snapshot, wallClock: Self.now) == .unlocked(remaining: nil))
        }
        for feature in ["aiCoach", "advancedAnalytics", "advancedFilters", "tieredVoting", "customTags", "sync"] {
            let rule = try #require(gate.rules[feature], "\(feature)")
            #expect(rule.entitlement == "plus" && rule.freeCount == nil && rule.freeDays == nil)
            #expect(rule.paywall != FeatureGate.fallbackCopy)
            #expect(gate.check(feature, snapshot: snapshot, wallClock: Self.now).paywall?.reason == .notEntitled)
        }
    }
}
