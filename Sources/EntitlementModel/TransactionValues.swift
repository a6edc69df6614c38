// The open enumerations of StoreKit 2 / App Store Server payloads. Each is a struct over the raw
// value Apple writes, like StoreKit's own `Transaction.OfferType`: known values are static members,
// and an unknown value is kept as written instead of failing the event. Compare with `==` or
// `switch` with a `default`.

/// `type`: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`.
public struct StoreProductType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let autoRenewable = Self(rawValue: "Auto-Renewable Subscription")
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    public static let consumable = Self(rawValue: "Consumable")
    public static let nonRenewing = Self(rawValue: "Non-Renewing Subscription")
}

/// `inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED`.
public struct OwnershipType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let purchased = Self(rawValue: "PURCHASED")
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
}

/// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
public struct OfferType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    public static let introductory = Self(rawValue: 1)
    public static let promotional = Self(rawValue: 2)
    public static let offerCode = Self(rawValue: 3)
    public static let winBack = Self(rawValue: 4)
}

/// `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
public struct OfferDiscountType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
}

/// `revocationReason`: 0 other (e.g. accidental purchase), 1 an issue with the app.
public struct RevocationReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    public static let other = Self(rawValue: 0)
    public static let developerIssue = Self(rawValue: 1)
}

/// `revocationType`: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
public struct RevocationType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let refundFull = Self(rawValue: "REFUND_FULL")
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")
}

/// `transactionReason`: `PURCHASE` or `RENEWAL`.
public struct TransactionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let purchase = Self(rawValue: "PURCHASE")
    public static let renewal = Self(rawValue: "RENEWAL")
}

/// `expirationIntent`: why a subscription expired (renewal info).
public struct ExpirationIntent: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    public static let customerCancelled = Self(rawValue: 1)
    public static let billingError = Self(rawValue: 2)
    public static let priceIncreaseDeclined = Self(rawValue: 3)
    public static let productUnavailable = Self(rawValue: 4)
    public static let other = Self(rawValue: 5)
}
