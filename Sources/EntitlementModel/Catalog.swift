/// Everything the engine and the feature gate need to know about one app: its products (from the
/// Xcode `.storekit` file), which products grant which entitlements, and which features each
/// entitlement unlocks (from `Catalog.json`). A pure value; see ``Catalog/load(path:contents:)`` for files.
public struct Catalog: Sendable, Hashable {
    /// Events for any other bundle are refused (``Catalog/validate(_:)``).
    public var bundleId: String
    /// Events from any other environment are refused (``Catalog/validate(_:)``).
    public var environment: StoreEnvironment
    /// The `.storekit` path as `Catalog.json` writes it (relative to the catalog file).
    public var storeKitPath: String
    /// Every product in the `.storekit` file, by product identifier.
    public var products: [String: CatalogProduct]
    /// Entitlement identifier -> the products that grant it. Setting it rebuilds
    /// ``entitlementsByProduct``.
    public var entitlements: [String: Set<String>] {
        didSet { entitlementsByProduct = Self.reverse(entitlements) }
    }
    /// Product identifier -> the entitlements it grants (the reverse of ``entitlements``).
    public private(set) var entitlementsByProduct: [String: Set<String>]
    /// The features of `Catalog.json`'s `features`: what each one needs, its free allowance and
    /// its paywall copy. What an app or an extension checks features against.
    public var featureGate: FeatureGate
    /// Who may still redeem a subscription group's introductory offer.
    public var introductoryOfferPolicy: IntroductoryOfferPolicy
    /// Whether data must be signed, and by which roots (catalog keys `signatures`, `trustedRoots`).
    public var signatures: SignaturePolicy
    /// How long after a `paywallShown` for a feature a purchase unlocking it counts as
    /// `upgradedFromPaywall` (catalog key `attributionWindow`, default one hour).
    public var attributionWindow = ISO8601Duration(hours: 1)
    /// The order a paywall lists products in: first appearance in the catalog's `entitlements`,
    /// then the `.storekit` file's other products in its order (empty for a catalog made in code,
    /// which lists by product id).
    public var paywallProductOrder: [String] = []

    /// A catalog from values; ``load(path:contents:)`` decodes one from `Catalog.json` and its `.storekit` file.
    /// `signatures` defaults to ``SignaturePolicy/defaultRequirement(for:)`` of `environment`.
    public init(
        bundleId: String, environment: StoreEnvironment, storeKitPath: String = "", products: [String: CatalogProduct],
        entitlements: [String: Set<String>], featureGate: FeatureGate = FeatureGate(rules: [:]),
        introductoryOfferPolicy: IntroductoryOfferPolicy = .newSubscribersOnly, signatures: SignaturePolicy? = nil
    ) {
        self.signatures = signatures ?? SignaturePolicy(requirement: SignaturePolicy.defaultRequirement(for: environment))
        self.bundleId = bundleId
        self.environment = environment
        self.storeKitPath = storeKitPath
        self.products = products
        self.entitlements = entitlements
        self.featureGate = featureGate
        self.introductoryOfferPolicy = introductoryOfferPolicy
        self.entitlementsByProduct = Self.reverse(entitlements)
    }

    private static func reverse(_ entitlements: [String: Set<String>]) -> [String: Set<String>] {
        var reverse: [String: Set<String>] = [:]
        for (entitlement, productIds) in entitlements {
            for productId in productIds { reverse[productId, default: []].insert(entitlement) }
        }
        return reverse
    }

    /// The products of subscription group `groupId`, sorted by product identifier.
    public func products(inGroup groupId: String) -> [CatalogProduct] {
        products.values.filter { if case .autoRenewable(groupId, _) = $0.kind { true } else { false } }
            .sorted { $0.id < $1.id }
    }
}

/// Who may redeem a subscription group's introductory offer (catalog key `introductoryOffer`).
public enum IntroductoryOfferPolicy: String, Sendable, Hashable, CaseIterable {
    /// App Store rule: anyone who ever subscribed to any product of the group, paid or not, is no
    /// longer eligible. Catalog spelling `newSubscribersOnly` (the default).
    case newSubscribersOnly
    /// Only an earlier introductory-offer redemption in the group (a trial or intro price) removes
    /// eligibility; earlier paid subscribers may still take the offer. Catalog spelling `oncePerGroup`.
    case oncePerGroup
}
