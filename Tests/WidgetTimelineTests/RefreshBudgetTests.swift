import Entitlements
import Foundation
import Testing
import WidgetTimeline

@Suite struct RefreshBudgetTests {
    static let month = 31.0 * 86_400
    static let stale = Fixtures.snapshot(
        Fixtures.subscribed.entitlements["plus"] ?? .notPurchased, nextTransition: Fixtures.date("2026-03-01T12:01:00Z"))

    @Test(arguments: [
        ("subscribed", Fixtures.subscribed), ("lifetime", Fixtures.lifetime), ("expired", Fixtures.expired),
        ("none", nil), ("stale", stale),
    ] as [(String, EntitlementSnapshot?)])
    func policiesStayInsideBudgetForAMonth(label: String, snapshot: EntitlementSnapshot?) {
        let report = WidgetRefreshBudget().simulate(
            provider: EntitlementTimelineProvider(gate: Fixtures.gate), snapshot: snapshot, family: .systemSmall,
            from: Fixtures.now, until: Fixtures.now.addingTimeInterval(Self.month))
        #expect(report.isWithinBudget, "\(label): \(report)")
        #expect(report.busiestDay <= 1, "\(label): \(report.reloads)")
    }

    @Test func subscriptionReloadsOnceAtExpiryThenStops() {
        let report = WidgetRefreshBudget().simulate(
            provider: EntitlementTimelineProvider(gate: Fixtures.gate), snapshot: Fixtures.subscribed,
            family: .accessoryInline, from: Fixtures.now, until: Fixtures.now.addingTimeInterval(Self.month))
        #expect(report.reloads == [Fixtures.expiry])
        #expect(report.shortestEntryGap == Fixtures.expiry.timeIntervalSince(Fixtures.now))
    }

    @Test func reportFlagsTooManyOrTooCloseReloads() {
        let budget = WidgetRefreshBudget()
        #expect(!WidgetRefreshBudget.Report(
            reloads: [], busiestDay: 41, shortestReloadGap: 3600, shortestEntryGap: nil, budget: budget).isWithinBudget)
        #expect(!WidgetRefreshBudget.Report(
            reloads: [], busiestDay: 2, shortestReloadGap: 299, shortestEntryGap: nil, budget: budget).isWithinBudget)
        #expect(WidgetRefreshBudget.Report(
            reloads: [], busiestDay: 40, shortestReloadGap: 300, shortestEntryGap: nil, budget: budget).isWithinBudget)
    }
}
