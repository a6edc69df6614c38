import StoreKitFormats

/// Everything the engine and the feature gate need to know about one app: its products (from the
/// Xcode `.storekit` file), which products grant which entitlements, and which features each
/// entitlement unlocks (from `Catalog.json`). A pure value; see ``Catalog/load(path:bytes:)`` for files.
public struct Catalog: Sendable, Hashable {
    /// Events for any other bundle are refused (``Catalog/validate(_:)``).
    public var bundleId: String
    /// The first environment the catalog names (catalog key `environment`, a string or a list).
    public var environment: StoreEnvironment { environments[0] }
    /// Every environment whose events are accepted, ``environment`` first; events from any other
    /// environment are refused (``Catalog/validate(_:)``). A released app names
    /// `["Production", "Sandbox"]`: App Review and TestFlight buy in the sandbox.
    public var environments: [StoreEnvironment]
    /// The app-group id (catalog key `appGroup`), or `nil` when the catalog names none; the tools
    /// use it when neither `--group` nor `ENTITLEMENTS_GROUP` names one.
    public var appGroup: String?
    /// The feature that gates the widgets (catalog key `widgetFeature`, default `widgets`).
    public var widgetFeature = "widgets"
    /// The feature that gates the watch app and its complications (catalog key `watchFeature`,
    /// default `watchApp`).
    public var watchFeature = "watchApp"

    /// Suite key -> entitlement id (catalog key `legacyKeys`): each publish also writes, in the
    /// same atomic replace, a boolean under the key, true exactly when the entitlement is active,
    /// for widget code that reads a plain flag.
    public var legacyKeys: [String: String] = [:]

    /// The flags ``legacyKeys`` asks for, from the statuses of a publish: key -> whether its
    /// entitlement is active.
    public func legacyFlags(_ statuses: [String: EntitlementStatus]) -> [String: Bool] {
        legacyKeys.mapValues { statuses[$0]?.active ?? false }
    }

    /// Suite key -> premium toggle (catalog key `preferences`): what `entitlementctl preference`
    /// stores and `LaunchPreferences` resolves at launch. Nothing about a preference is built in.
    public var preferences: [String: PreferenceDeclaration] = [:]

    /// How long an auto-renewable subscription stays active past its `expiresDate` while its
    /// renewal has not arrived (catalog key `renewalLeeway`; `nil`, the default, for none). Only
    /// with positive evidence: the latest renewal info says auto-renew is on, no billing problem,
    /// no revocation.
    public var renewalLeeway: ISO8601Duration?

    /// Who keeps an entitlement for having bought the app while it was paid (catalog key
    /// `paidAppGrant`); `nil` when the catalog names none.
    public var paidAppGrant: PaidAppGrant?

    /// How long the watch trusts its snapshot after its last sync with the phone (catalog key
    /// `companionOfflineLimit`, default ``defaultCompanionOfflineLimit``); past it the watch's
    /// readers fail closed (``EntitlementSnapshot/isTrusted(at:offlineLimit:readerIsWatch:)``).
    public var companionOfflineLimit = Catalog.defaultCompanionOfflineLimit
    /// `P7D`: a week out of range of the phone.
    public static let defaultCompanionOfflineLimit = ISO8601Duration(days: 7)

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
    /// then the `.storekit` file's other products in its order.
    public var paywallProductOrder: [String] = []

    /// A catalog of the keys every catalog has; ``init(catalogJSON:storeKitJSON:catalogPath:trustedRootFiles:)``
    /// sets the others. `signatures` is the default for the environments.
    init(
        bundleId: String, environments: [StoreEnvironment], appGroup: String?, storeKitPath: String, products: [String: CatalogProduct],
        entitlements: [String: Set<String>], featureGate: FeatureGate, introductoryOfferPolicy: IntroductoryOfferPolicy
    ) {
        (self.bundleId, self.environments, self.appGroup, self.storeKitPath) = (bundleId, environments, appGroup, storeKitPath)
        (self.products, self.entitlements, self.featureGate) = (products, entitlements, featureGate)
        self.introductoryOfferPolicy = introductoryOfferPolicy
        self.signatures = SignaturePolicy(requirement: SignaturePolicy.defaultRequirement(for: environments))
        self.entitlementsByProduct = Self.reverse(entitlements)
    }

    private static func reverse(_ entitlements: [String: Set<String>]) -> [String: Set<String>] {
        var reverse: [String: Set<String>] = [:]
        for (entitlement, productIds) in entitlements {
            for productId in productIds { reverse[productId, default: []].insert(entitlement) }
        }
        return reverse
    }

    /// Whether `group` may name an app group: it becomes a file name, so letters, digits, `.`,
    /// `-` and `_` only (Unicode letters and digits included), no leading dot, 1 to 200 bytes.
    public static func isValidAppGroup(_ group: String) -> Bool {
        !group.isEmpty && !group.hasPrefix(".") && group.utf8.count <= 200
            && group.unicodeScalars.allSatisfy { isLetterMarkOrNumber($0) || "._-".unicodeScalars.contains($0) }
    }

    /// Foundation's `CharacterSet.alphanumerics`: Unicode general categories L*, M* and N*.
    private static func isLetterMarkOrNumber(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber:
            true
        default:
            false
        }
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
