// The open enumerations of StoreKit 2 / App Store Server payloads. Each is a struct over the raw
// value Apple writes, like StoreKit's own `Transaction.OfferType`: known values are static members,
// and an unknown value is kept as written instead of failing the event. Compare with `==` or
// `switch` with a `default`.

/// A closed set of values Apple writes, in a fixed order: a transaction keeps such a value as its
/// position in ``known`` (see ``StoreTransaction``), and any other value as written.
protocol KnownValues: RawRepresentable, Hashable where RawValue: LosslessStringConvertible {
    static var known: [Self] { get }
}

/// `type`: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`.
public struct StoreProductType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.autoRenewable, .nonConsumable, .consumable, .nonRenewing]
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A subscription that renews automatically until cancelled.
    public static let autoRenewable = Self(rawValue: "Auto-Renewable Subscription")
    /// A product bought once and kept (for example lifetime access).
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    /// A product used up once bought; grants no entitlement that lasts.
    public static let consumable = Self(rawValue: "Consumable")
    /// A subscription for a fixed period that does not renew by itself.
    public static let nonRenewing = Self(rawValue: "Non-Renewing Subscription")
}

/// `inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED`.
public struct OwnershipType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.purchased, .familyShared]
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The customer bought the product.
    public static let purchased = Self(rawValue: "PURCHASED")
    /// The customer has the product through a Family Sharing member's purchase.
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
}

/// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
public struct OfferType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.introductory, .promotional, .offerCode, .winBack]
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    /// An introductory offer: a free trial or a discounted first period for new subscribers.
    public static let introductory = Self(rawValue: 1)
    /// A promotional offer the app presented to an existing or lapsed subscriber.
    public static let promotional = Self(rawValue: 2)
    /// An offer redeemed with an offer code.
    public static let offerCode = Self(rawValue: 3)
    /// A win-back offer for a customer whose subscription lapsed.
    public static let winBack = Self(rawValue: 4)
}

/// `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
public struct OfferDiscountType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.freeTrial, .payAsYouGo, .payUpFront]
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The offer period costs nothing.
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
    /// A discounted price paid for each period of the offer.
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
    /// A discounted price paid once for the whole offer.
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
}

/// `revocationReason`: 0 other (e.g. accidental purchase), 1 an issue with the app.
public struct RevocationReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.other, .developerIssue]
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    /// Refunded for another reason, for example an accidental purchase.
    public static let other = Self(rawValue: 0)
    /// Refunded because of an actual or perceived issue within the app.
    public static let developerIssue = Self(rawValue: 1)
}

/// `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
public struct RevocationType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.refundFull, .refundProrated, .familyRevoke]
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The whole purchase was refunded.
    public static let refundFull = Self(rawValue: "REFUND_FULL")
    /// Part of the purchase was refunded, in proportion to the time left.
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
    /// The purchaser stopped sharing the product with the family, or the customer left it.
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")
}

/// `transactionReason`: `PURCHASE` or `RENEWAL`.
public struct TransactionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    static let known: [Self] = [.purchase, .renewal]
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The customer bought the product (or upgraded).
    public static let purchase = Self(rawValue: "PURCHASE")
    /// An auto-renewable subscription renewed by itself.
    public static let renewal = Self(rawValue: "RENEWAL")
}

/// `expirationIntent`: why a subscription expired (renewal info).
public struct ExpirationIntent: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    /// The customer turned auto-renewal off.
    public static let customerCancelled = Self(rawValue: 1)
    /// The renewal could not be billed.
    public static let billingError = Self(rawValue: 2)
    /// The customer did not consent to a price increase that required consent.
    public static let priceIncreaseDeclined = Self(rawValue: 3)
    /// The product was not available for purchase at renewal time.
    public static let productUnavailable = Self(rawValue: 4)
    /// Another reason.
    public static let other = Self(rawValue: 5)
}
