/// Who may still take an introductory offer, as far as a reader of the snapshot can tell: the
/// one rule behind `check`'s `introOfferEligible`, the `introOffer` paywall copy and the
/// `products` command's per-product eligibility.
///
/// A subscription group's offer is open to a user whose snapshot shows no entitlement that a
/// product of that group decides (in any state but `notPurchased`); under
/// ``IntroductoryOfferPolicy/oncePerGroup`` only one decided by a trial or an introductory price
/// closes it. No snapshot answers `false`: an offer the user may not get is never promised.
/// The snapshot holds each entitlement's deciding product only, so a subscription since replaced
/// by a lifetime purchase no longer counts (the journal-based `status` text is exact).
extension FeatureGate {
    /// Whether the user may take the introductory offer of a product that unlocks `feature`
    /// (one whose subscription group the snapshot shows no subscription in).
    ///
    /// ```swift
    /// if gate.introOfferEligible("widgets", snapshot: snapshot) { showTrialButton() }
    /// ```
    public func introOfferEligible(_ feature: String, snapshot: EntitlementSnapshot?) -> Bool {
        guard let rule = rules[feature] else { return false }
        return introOfferEligible(rule, snapshot: snapshot)
    }

    func introOfferEligible(_ rule: FeatureRule, snapshot: EntitlementSnapshot?) -> Bool {
        guard !rule.introOfferGroups.isEmpty, snapshot != nil else { return false }
        return rule.introOfferGroups.contains { introOfferEligible(group: $0, snapshot: snapshot) }
    }

    /// Whether the user may take subscription group `group`'s introductory offer (the group's
    /// id as ``ProductKind/autoRenewable(groupId:level:)`` names it).
    public func introOfferEligible(group: String, snapshot: EntitlementSnapshot?) -> Bool {
        guard let snapshot else { return false }
        for (_, status) in snapshot.entitlements where status.state != .notPurchased {
            guard let product = status.productId, subscriptionGroups[product] == group else { continue }
            switch introductoryOfferPolicy {
            case .newSubscribersOnly: return false
            case .oncePerGroup: if status.periodType == .trial || status.periodType == .intro { return false }
            }
        }
        return true
    }
}
