#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

/// One product as a paywall draws it: the product as the `.storekit` file describes it (price,
/// period, subscription group, introductory offer), its texts in a locale, and whether this user
/// owns it or may take its offer (from the snapshot). What `entitlementctl products` prints.
public struct PaywallProduct: Sendable, Hashable {
    /// The product, with the catalog's duration of a non-renewing subscription.
    public var product: CatalogProduct
    /// The product's name in the chosen locale.
    public var displayName: String
    /// The product's description in the chosen locale.
    public var description: String
    /// The product has an introductory offer and the user may take it
    /// (``FeatureGate/introOfferEligible(group:snapshot:)``).
    public var introOfferEligible: Bool
    /// The product decides one of the user's active entitlements.
    public var owned: Bool
}

extension Catalog {
    /// The products a paywall offers, in ``paywallProductOrder`` (products it does not order come
    /// last, by id), with texts in `locale` (a `.storekit` locale such as
    /// `en_US`, `-` and `_` alike; else the file's first localization; else the reference name).
    ///
    /// ```swift
    /// for offered in catalog.paywallProducts(feature: "widgets", locale: "de_DE", snapshot: reader.snapshot, wallClock: .now) {
    ///     print(offered.displayName, offered.product.displayPrice ?? "", offered.introOfferEligible ? "free trial" : "")
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
        var eligible = false
        if case .autoRenewable(let group, _) = product.kind, product.introductoryOffer != nil {
            eligible = featureGate.introOfferEligible(group: group, snapshot: snapshot)
        }
        return PaywallProduct(
            product: product, displayName: texts?.displayName ?? product.referenceName ?? product.id,
            description: texts?.description ?? "", introOfferEligible: eligible, owned: owned)
    }
}
