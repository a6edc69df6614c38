import EntitlementDefaults
import Entitlements
import Foundation
import Testing

/// Copy per reason (`paywall.byReason`), introductory-offer eligibility from the snapshot, the
/// products a paywall lists, `adding`, and the report over analytics events: the library side.
@Suite struct PaywallCopyTests {
    static let time = Date(timeIntervalSince1970: 1_790_000_000)
    static let own = PaywallCopy(title: "T", message: "M", callToAction: "C")
    static let rule = FeatureRule(
        entitlement: "plus", freeCount: 2, paywall: own,
        copyByReason: [
            "expired": PaywallCopyOverride(title: "Expired"), "limitReached": PaywallCopyOverride(message: "Full"),
            "introOffer": PaywallCopyOverride(callToAction: "Try free"),
        ], introOfferGroups: ["g"])
    static let gate = FeatureGate(rules: ["cards": rule])

    static func snapshot(_ status: EntitlementStatus, ineligibleGroups: [String] = []) -> EntitlementSnapshot {
        EntitlementSnapshot(
            generation: 1, issuedAt: time, nextTransition: nil, entitlements: ["plus": status], introOfferIneligibleGroups: ineligibleGroups)
    }

    @Test func fallbackChainIntroOfferThenReasonThenOwn() {
        #expect(Self.rule.copy(for: .notEntitled, introOfferEligible: false) == Self.own)
        #expect(Self.rule.copy(for: .notEntitled, introOfferEligible: true) == PaywallCopy(title: "T", message: "M", callToAction: "Try free"))
        #expect(Self.rule.copy(for: .expired, introOfferEligible: true) == PaywallCopy(title: "Expired", message: "M", callToAction: "Try free"))
        #expect(Self.rule.copy(for: .limitReached, introOfferEligible: true) == PaywallCopy(title: "T", message: "Full", callToAction: "C"))
        #expect(Self.rule.copy(for: .familyRevoked, introOfferEligible: true) == Self.own)
    }

    @Test func eligibilityEndsWithAnySubscriptionInTheGroup() {
        let free = Self.snapshot(.notPurchased)
        let lapsed = Self.snapshot(EntitlementStatus(active: false, state: .expired, productId: "monthly"), ineligibleGroups: ["g"])
        #expect(Self.gate.introOfferEligible("cards", snapshot: free))
        #expect(!Self.gate.introOfferEligible("cards", snapshot: lapsed))
        #expect(!Self.gate.introOfferEligible("cards", snapshot: nil))
        let locked = Self.gate.check("cards", snapshot: free, wallClock: Self.time, currentCount: 2)
        #expect(locked.paywall?.copy.message == "Full" && locked.paywall?.introOfferEligible == true)
        let expired = Self.gate.check("cards", snapshot: lapsed, wallClock: Self.time)
        // A count-limited feature of a lapsed user is at its limit: that reason's copy, no offer.
        #expect(expired.paywall?.reason == .limitReached && expired.paywall?.introOfferEligible == false)
        #expect(expired.paywall?.copy == PaywallCopy(title: "T", message: "Full", callToAction: "C"))
    }

    @Test func addingUnlocksOnlyWhileAllFit() {
        let free = Self.snapshot(.notPurchased)
        #expect(Self.gate.check("cards", snapshot: free, wallClock: Self.time, currentCount: 0, adding: 2).isUnlocked)
        #expect(!Self.gate.check("cards", snapshot: free, wallClock: Self.time, currentCount: 1, adding: 2).isUnlocked)
        #expect(Self.gate.check("cards", snapshot: free, wallClock: Self.time, currentCount: 1) == .unlocked(remaining: 1))
    }

    @Test func reportCountsAndConverts() throws {
        let events = [
            PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time),
            PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time + 10),
            PaywallEvent(.upgradedFromPaywall, feature: "cards", reason: .limitReached, time: Self.time + 20),
            .used("cards", tier: .premium, time: Self.time + 30), .used("cards", tier: .free, time: Self.time - 1),
        ]
        let report = PaywallReport(events: events, features: ["cards", "sync"])
        #expect(report.features["cards"]?.conversion == 0.5)
        #expect(report.features["cards"]?.usedPremium == 1 && report.features["cards"]?.usedFree == 1)
        #expect(report.features["sync"]?.conversion == nil)
        #expect(PaywallReport(events: events, since: Self.time).features["cards"]?.usedFree == 0)
        #expect(try PaywallEvent(jsonLine: events[3].jsonLine) == events[3])
    }
}
