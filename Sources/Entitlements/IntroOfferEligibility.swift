import StoreKitFormats

/// Who may still take an introductory offer: the one rule behind `check`'s
/// `introOfferEligible`, the `introOffer` paywall copy, the `products` command's per-product
/// eligibility and `status`'s text.
///
/// A subscription group's offer is closed to a user who ever subscribed in that group, paid or
/// not, expired, revoked or upgraded since (App Store rule, ``IntroductoryOfferPolicy/newSubscribersOnly``);
/// under ``IntroductoryOfferPolicy/oncePerGroup`` only an earlier trial or introductory price in
/// the group closes it. The engine decides it from every transaction the facts hold
/// (``EntitlementEngine/introductoryOfferEligibility(_:)``); the daemon publishes the closed
/// groups in the snapshot (`introOfferIneligibleGroups`), and readers read them from there. No
/// snapshot answers `false`: an offer the user may not get is never promised.
extension EntitlementEngine {
    /// Subscription group id -> whether the user may still redeem that group's introductory offer
    /// (one per group), under ``Catalog/introductoryOfferPolicy``. Every group of the catalog is
    /// present. Revoked, expired and upgraded transactions count as history too, as does a
    /// subscription a lifetime purchase replaced. One step per product the facts name.
    public func introductoryOfferEligibility(_ facts: FactStore) -> [String: Bool] {
        var eligibility: [String: Bool] = [:]
        for product in catalog.products.values {
            if case .autoRenewable(let group, _) = product.kind { eligibility[group] = true }
        }
        for (productId, use) in facts.productUses where use.transactions > 0 {
            guard case .autoRenewable(let group, _)? = catalog.products[productId]?.kind else { continue }
            switch catalog.introductoryOfferPolicy {
            case .newSubscribersOnly: eligibility[group] = false
            case .oncePerGroup where use.introductoryOffers > 0: eligibility[group] = false
            case .oncePerGroup: break
            }
        }
        return eligibility
    }
}

extension FeatureGate {
    /// Whether the user may take the introductory offer of a product that unlocks `feature`
    /// (one whose subscription group the snapshot does not list as closed).
    ///
    /// ```swift
    /// if gate.introOfferEligible("widgets", snapshot: snapshot) { showTrialButton() }
    /// ```
    public func introOfferEligible(_ feature: String, snapshot: EntitlementSnapshot?) -> Bool {
        guard let rule = rules[feature] else { return false }
        return introOfferEligible(rule, snapshot: snapshot)
    }

    func introOfferEligible(_ rule: FeatureRule, snapshot: EntitlementSnapshot?) -> Bool {
        rule.introOfferGroups.contains { introOfferEligible(group: $0, snapshot: snapshot) }
    }

    /// Whether the user may take subscription group `group`'s introductory offer (the group's
    /// id as `ProductKind.autoRenewable(groupId:level:)` names it): the snapshot does not list
    /// it in `introOfferIneligibleGroups`.
    public func introOfferEligible(group: String, snapshot: EntitlementSnapshot?) -> Bool {
        guard let snapshot else { return false }
        return !snapshot.introOfferIneligibleGroups.contains(group)
    }
}
