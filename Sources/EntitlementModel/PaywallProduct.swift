#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One product as a paywall draws it: its texts in a locale, price, period, subscription group
/// and introductory offer from the `.storekit` file, and whether this user owns it or may take
/// its offer (from the snapshot). What `entitlementctl products` prints, one object each.
public struct PaywallProduct: Sendable, Hashable {
    /// An introductory offer as a paywall shows it.
    public struct IntroOffer: Sendable, Hashable {
        /// `freeTrial`, `payAsYouGo` or `payUpFront` (the `.storekit` file's `free` is `freeTrial`).
        public var paymentMode: String
        /// One offer period (ISO 8601), `nil` when the file leaves it out.
        public var period: String?
        /// How many offer periods (1 when the file leaves it out).
        public var periodCount: Int
        /// The offer's price as the file writes it, `nil` when absent.
        public var displayPrice: String?
    }

    /// The App Store product identifier.
    public var productId: String
    /// `autoRenewable`, `nonConsumable`, `nonRenewing` or `consumable`.
    public var type: String
    /// The product's name in the chosen locale.
    public var displayName: String
    /// The product's description in the chosen locale.
    public var description: String
    /// The price as the `.storekit` file writes it (`4.99`), `nil` when absent.
    public var displayPrice: String?
    /// The renewal period (auto-renewable) or the catalog's duration (non-renewing), ISO 8601.
    public var period: String?
    /// The subscription group's id (auto-renewable only).
    public var subscriptionGroup: String?
    /// The `.storekit` file's `groupNumber` (1 = highest), auto-renewable only.
    public var level: Int?
    /// The introductory offer, auto-renewable only; `nil` when the file declares none.
    public var introOffer: IntroOffer?
    /// The product has an introductory offer and the user may take it
    /// (``FeatureGate/introOfferEligible(group:snapshot:)``).
    public var introOfferEligible: Bool
    /// The product decides one of the user's active entitlements.
    public var owned: Bool

    /// The object `entitlementctl products` prints.
    public var json: JSONValue {
        .object([
            "productId": .string(productId), "type": .string(type), "displayName": .string(displayName),
            "description": .string(description), "displayPrice": displayPrice.map(JSONValue.string) ?? .null,
            "period": period.map(JSONValue.string) ?? .null, "subscriptionGroup": subscriptionGroup.map(JSONValue.string) ?? .null,
            "level": level.map { .int(Int64($0)) } ?? .null,
            "introOffer": introOffer.map { offer in
                .object([
                    "paymentMode": .string(offer.paymentMode), "period": offer.period.map(JSONValue.string) ?? .null,
                    "periodCount": .int(Int64(offer.periodCount)), "displayPrice": offer.displayPrice.map(JSONValue.string) ?? .null,
                ])
            } ?? .null,
            "introOfferEligible": .bool(introOfferEligible), "owned": .bool(owned),
        ])
    }
}

extension Catalog {
    /// The products a paywall offers, in ``paywallProductOrder`` (products a catalog made in code
    /// does not order come last, by id), with texts in `locale` (a `.storekit` locale such as
    /// `en_US`, `-` and `_` alike; else the file's first localization; else the reference name).
    ///
    /// ```swift
    /// for product in catalog.paywallProducts(feature: "widgets", locale: "de_DE", snapshot: reader.snapshot, wallClock: .now) {
    ///     print(product.displayName, product.displayPrice ?? "", product.introOfferEligible ? "free trial" : "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - feature: keep only the products that unlock this feature (`nil`: every product).
    ///   - locale: the localization to use (`nil`: each product's first).
    ///   - snapshot: the last good snapshot (`nil`: nothing owned, no offer promised).
    ///   - wallClock: the reader's clock, for whether an owned product is still in force.
    public func paywallProducts(feature: String? = nil, locale: String? = nil, snapshot: EntitlementSnapshot?, wallClock: Date) -> [PaywallProduct] {
        let unlocking: Set<String>? = feature.map { feature in
            featureGate.rules[feature]?.entitlement.flatMap { entitlements[$0] } ?? []
        }
        let ordered = paywallProductOrder.filter { products[$0] != nil }
        let rest = products.keys.filter { !Set(ordered).contains($0) }.sorted()
        let now = snapshot?.effectiveNow(wallClock: wallClock) ?? wallClock
        var owned: Set<String> = []
        for (_, status) in snapshot?.entitlements ?? [:] where status.isActive(at: now) {
            if let id = status.productId { owned.insert(id) }
        }
        return (ordered + rest).compactMap { id in
            guard let product = products[id], unlocking?.contains(id) ?? true else { return nil }
            return paywallProduct(product, locale: locale, snapshot: snapshot, owned: owned.contains(id))
        }
    }

    private func paywallProduct(_ product: CatalogProduct, locale: String?, snapshot: EntitlementSnapshot?, owned: Bool) -> PaywallProduct {
        func normalized(_ locale: String) -> String { String(locale.map { $0 == "-" ? "_" : $0 }).lowercased() }
        let texts = locale.flatMap { wanted in product.localizations.first { normalized($0.locale) == normalized(wanted) } }
            ?? product.localizations.first
        var type = "consumable", period: String?, group: String?, level: Int?
        switch product.kind {
        case .autoRenewable(let groupId, let groupLevel):
            type = "autoRenewable"
            period = product.subscriptionPeriod?.description
            group = groupId
            level = groupLevel
        case .nonConsumable: type = "nonConsumable"
        case .consumable: type = "consumable"
        case .nonRenewing(let duration):
            type = "nonRenewing"
            period = duration?.description
        }
        let offer = group == nil ? nil : product.introductoryOffer.map { offer in
            PaywallProduct.IntroOffer(
                paymentMode: offer.isFreeTrial ? "freeTrial" : offer.paymentMode, period: offer.period?.description,
                periodCount: offer.numberOfPeriods ?? 1, displayPrice: offer.displayPrice)
        }
        let eligible = offer != nil && group.map { featureGate.introOfferEligible(group: $0, snapshot: snapshot) } == true
        return PaywallProduct(
            productId: product.id, type: type, displayName: texts?.displayName ?? product.referenceName ?? product.id,
            description: texts?.description ?? "", displayPrice: product.displayPrice, period: period, subscriptionGroup: group,
            level: level, introOffer: offer, introOfferEligible: eligible, owned: owned)
    }
}
