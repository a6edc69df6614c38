#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One StoreKit 2 transaction: `Transaction.jsonRepresentation`, which has the same schema as the
/// App Store Server's `JWSTransactionDecodedPayload`.
///
/// Dates are decoded from milliseconds since 1970 (fractions allowed, as in Xcode-signed data) and
/// must lie between 2008 and 2200. Fields Apple may omit are optional; enumerations keep unknown
/// values as written (see ``StoreProductType`` and its siblings).
public struct StoreTransaction: Sendable, Hashable {
    /// The unique identifier of this transaction: a purchase, a restore or one renewal period.
    /// Versions of one transaction (a refund, its reversal) share it.
    public var transactionId: String
    /// The `transactionId` of the first purchase this transaction descends from: every renewal of a
    /// subscription carries the original purchase's, so it identifies the subscription.
    public var originalTransactionId: String
    /// The App Store's identifier for this subscription purchase or renewal across devices; `nil`
    /// for products that are not subscriptions.
    public var webOrderLineItemId: String?
    /// The bundle identifier of the app the purchase belongs to; checked against the catalog's
    /// `bundleId` when present.
    public var bundleId: String?
    /// The product identifier as configured in App Store Connect (and in the `.storekit` file).
    public var productId: String
    /// The subscription group the product belongs to; `nil` for products that are not
    /// auto-renewable subscriptions.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer (for a renewal: when the renewal period began).
    public var purchaseDate: Date
    /// The purchase date of the original transaction (``originalTransactionId``); `nil` when the
    /// payload leaves it out.
    public var originalPurchaseDate: Date?
    /// The end of the period this transaction pays for (auto-renewable, sometimes non-renewing).
    public var expiresDate: Date?
    /// The number of items bought (consumables can be more than 1); `nil` when not written.
    public var quantity: Int?
    /// The kind of product: auto-renewable, non-consumable, consumable or non-renewing.
    public var type: StoreProductType
    /// The UUID the app attached to the purchase to link it to its own account system, as written;
    /// `nil` when the app gave none.
    public var appAccountToken: String?
    /// Whether the customer bought the product or has it through Family Sharing.
    public var inAppOwnershipType: OwnershipType
    /// When Apple signed this version of the transaction; the newest version of one
    /// `transactionId` wins (a refund, then its reversal, arrive as newer versions).
    public var signedDate: Date?
    /// Why the App Store refunded or revoked the transaction; `nil` unless it was revoked.
    public var revocationReason: RevocationReason?
    /// When the App Store refunded or revoked the transaction; `nil` unless it was revoked. A
    /// revoked transaction grants nothing from this date on.
    public var revocationDate: Date?
    /// How the transaction was revoked (a full or prorated refund, or the family organiser
    /// stopped sharing); `nil` unless it was revoked.
    public var revocationType: RevocationType?
    /// Whether the customer upgraded from this subscription to a higher one in the same group; an
    /// upgraded transaction grants nothing, the upgrade's own transaction does. `false` when not
    /// written.
    public var isUpgraded: Bool
    /// The kind of offer this transaction was bought with (introductory, promotional, offer code,
    /// win-back); `nil` when it was bought at the regular price.
    public var offerType: OfferType?
    /// The identifier of the promotional offer, offer code or win-back offer; `nil` for
    /// introductory offers and regular prices.
    public var offerIdentifier: String?
    /// How the offer is paid: free trial, pay as you go or pay up front. `nil` when there is no
    /// offer, or in payloads that predate the field; for an introductory offer the catalog's
    /// `paymentMode` then decides.
    public var offerDiscountType: OfferDiscountType?
    /// The offer's duration as ISO 8601 text (`P1W`), as written.
    public var offerPeriod: String?
    /// The App Store environment that signed the transaction; data from an environment other than
    /// the catalog's is refused. `nil` when not written.
    public var environment: StoreEnvironment?
    /// The three-letter ISO 3166-1 alpha-3 country code of the customer's App Store storefront.
    public var storefront: String?
    /// Apple's numeric identifier of the storefront, as written.
    public var storefrontId: String?
    /// Whether the customer bought the product or a subscription renewed automatically; `nil`
    /// when not written.
    public var transactionReason: TransactionReason?
    /// Price in milli-units of `currency` (App Store Server convention), as written.
    public var price: Int64?
    /// The ISO 4217 currency code of ``price``; `nil` when the payload has no price.
    public var currency: String?

    /// A transaction with the given fields; those not passed are absent, as when the payload
    /// leaves them out (ownership defaults to ``OwnershipType/purchased``).
    public init(
        transactionId: String, originalTransactionId: String, webOrderLineItemId: String? = nil, bundleId: String? = nil,
        productId: String, subscriptionGroupIdentifier: String? = nil, purchaseDate: Date, originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil, quantity: Int? = nil, type: StoreProductType, appAccountToken: String? = nil,
        inAppOwnershipType: OwnershipType = .purchased, signedDate: Date? = nil, revocationReason: RevocationReason? = nil,
        revocationDate: Date? = nil, revocationType: RevocationType? = nil, isUpgraded: Bool = false, offerType: OfferType? = nil,
        offerIdentifier: String? = nil, offerDiscountType: OfferDiscountType? = nil, offerPeriod: String? = nil,
        environment: StoreEnvironment? = nil, storefront: String? = nil, storefrontId: String? = nil,
        transactionReason: TransactionReason? = nil, price: Int64? = nil, currency: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.revocationType = revocationType
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.price = price
        self.currency = currency
    }
}
