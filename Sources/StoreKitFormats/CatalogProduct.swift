/// One product from the `.storekit` file, with what the engine needs to evaluate it.
public struct CatalogProduct: Sendable, Hashable {
    /// The App Store product identifier (`productID` in the `.storekit` file).
    public var id: String
    /// The product's type (`type` in the `.storekit` file), with its subscription group or duration.
    public var kind: ProductKind
    /// Whether Family Sharing members get the product too (`familyShareable` in the `.storekit`
    /// file); `false` when absent.
    public var familyShareable: Bool
    /// The renewal period of an auto-renewable subscription (`recurringSubscriptionPeriod`).
    public var subscriptionPeriod: ISO8601Duration?
    /// The subscription's introductory offer, if the `.storekit` file declares one; it decides
    /// whether an introductory transaction without `offerDiscountType` is a free trial.
    public var introductoryOffer: IntroductoryOffer?
    /// The product's name in App Store Connect (`referenceName`), for logs; `nil` when absent.
    public var referenceName: String?
    /// The price as the `.storekit` file writes it (`displayPrice`, e.g. `4.99`), for paywall
    /// copy; `nil` when absent.
    public var displayPrice: String?
    /// The product's display name and description per locale (`localizations`), in the file's
    /// order; empty when the file has none.
    public var localizations: [ProductLocalization] = []
}

/// What kind of product it is, and the facts of that kind the engine uses.
public enum ProductKind: Sendable, Hashable {
    /// An auto-renewable subscription in subscription group `groupId`; `level` is the `.storekit`
    /// file's `groupNumber`, where 1 is the highest level of service.
    case autoRenewable(groupId: String, level: Int)
    /// A product bought once and kept, such as lifetime access.
    case nonConsumable
    /// Consumables never grant an entitlement.
    case consumable
    /// A non-renewing subscription; it lasts `duration` (from the catalog's `durations`) from its
    /// purchase date. `nil` only for products no entitlement references.
    case nonRenewing(duration: ISO8601Duration?)
}

/// A subscription's introductory offer as the `.storekit` file describes it.
public struct IntroductoryOffer: Sendable, Hashable {
    /// `free` (a free trial), `payAsYouGo` or `payUpFront`, as the `.storekit` file spells it;
    /// other spellings are kept as written.
    public var paymentMode: String
    /// The length of one offer period, e.g. `P1W`.
    public var period: ISO8601Duration?
    /// How many offer periods the offer lasts (`numberOfPeriods`); `nil` when the file leaves it out.
    public var numberOfPeriods: Int?
    /// The offer's price as the `.storekit` file writes it; `nil` when absent.
    public var displayPrice: String?

    /// Whether the offer is a free trial.
    public var isFreeTrial: Bool { paymentMode == "free" }
}

/// A product's texts in one locale, as the `.storekit` file's `localizations` give them.
public struct ProductLocalization: Sendable, Hashable {
    /// The locale as the file writes it (`en_US`).
    public var locale: String
    /// The product's name in that locale (`displayName`).
    public var displayName: String
    /// The product's description in that locale (`description`).
    public var description: String
}
