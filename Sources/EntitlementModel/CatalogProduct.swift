/// One product from the `.storekit` file, with what the engine needs to evaluate it.
public struct CatalogProduct: Sendable, Hashable {
    /// The App Store product identifier (`productID` in the `.storekit` file).
    public var id: String
    public var kind: ProductKind
    public var familyShareable: Bool
    /// The renewal period of an auto-renewable subscription (`recurringSubscriptionPeriod`).
    public var subscriptionPeriod: ISO8601Duration?
    public var introductoryOffer: IntroductoryOffer?
    public var referenceName: String?
    public var displayPrice: String?

    public init(
        id: String, kind: ProductKind, familyShareable: Bool = false, subscriptionPeriod: ISO8601Duration? = nil,
        introductoryOffer: IntroductoryOffer? = nil, referenceName: String? = nil, displayPrice: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.familyShareable = familyShareable
        self.subscriptionPeriod = subscriptionPeriod
        self.introductoryOffer = introductoryOffer
        self.referenceName = referenceName
        self.displayPrice = displayPrice
    }
}

/// What kind of product it is, and the facts of that kind the engine uses.
public enum ProductKind: Sendable, Hashable {
    /// An auto-renewable subscription in subscription group `groupId`; `level` is the `.storekit`
    /// file's `groupNumber`, where 1 is the highest level of service.
    case autoRenewable(groupId: String, level: Int)
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
    public var numberOfPeriods: Int?
    public var displayPrice: String?

    public init(paymentMode: String, period: ISO8601Duration?, numberOfPeriods: Int? = nil, displayPrice: String? = nil) {
        self.paymentMode = paymentMode
        self.period = period
        self.numberOfPeriods = numberOfPeriods
        self.displayPrice = displayPrice
    }

    /// Whether the offer is a free trial.
    public var isFreeTrial: Bool { paymentMode == "free" }
}
