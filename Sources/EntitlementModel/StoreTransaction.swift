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
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date
    public var originalPurchaseDate: Date?
    /// The end of the period this transaction pays for (auto-renewable, sometimes non-renewing).
    public var expiresDate: Date?
    public var quantity: Int?
    public var type: StoreProductType
    public var appAccountToken: String?
    public var inAppOwnershipType: OwnershipType
    /// When Apple signed this version of the transaction; the newest version of one
    /// `transactionId` wins (a refund, then its reversal, arrive as newer versions).
    public var signedDate: Date?
    public var revocationReason: RevocationReason?
    public var revocationDate: Date?
    public var revocationType: RevocationType?
    public var isUpgraded: Bool
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    /// The offer's duration as ISO 8601 text (`P1W`), as written.
    public var offerPeriod: String?
    public var environment: StoreEnvironment?
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: TransactionReason?
    /// Price in milli-units of `currency` (App Store Server convention), as written.
    public var price: Int64?
    public var currency: String?

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
