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
///
/// Stored for a daemon that holds hundreds of thousands: a value of a closed set in a byte (its
/// position among the values Apple writes today), the optional texts most payloads leave out
/// only when present, and one-byte fields right after each optional date or number, so that
/// nothing is padded.
public struct StoreTransaction: Sendable, Hashable {
    /// The unique identifier of this transaction: a purchase, a restore or one renewal period.
    /// Versions of one transaction (a refund, its reversal) share it.
    public var transactionId: String
    /// The `transactionId` of the first purchase this transaction descends from: every renewal of a
    /// subscription carries the original purchase's, so it identifies the subscription.
    public var originalTransactionId: String
    /// The product identifier as configured in App Store Connect (and in the `.storekit` file).
    public var productId: String
    /// The bundle identifier of the app the purchase belongs to; checked against the catalog's
    /// `bundleId` when present.
    public var bundleId: String?
    /// When the App Store charged the customer (for a renewal: when the renewal period began).
    public var purchaseDate: Date
    /// The end of the period this transaction pays for (auto-renewable, sometimes non-renewing).
    public var expiresDate: Date?
    // The codes of the closed fields (see `code(_:_:)`), each one byte, in the padding of the
    // optional before them.
    private var typeCode: UInt8 = 0, ownershipCode: UInt8 = 0, environmentCode: UInt8 = 0, reasonCode: UInt8 = 0
    /// Whether the customer upgraded from this subscription to a higher one in the same group; an
    /// upgraded transaction grants nothing, the upgrade's own transaction does. `false` when not
    /// written.
    public var isUpgraded = false
    private var offerTypeCode: UInt8 = 0, discountCode: UInt8 = 0
    /// When Apple signed this version of the transaction; the newest version of one
    /// `transactionId` wins (a refund, then its reversal, arrive as newer versions).
    public var signedDate: Date?
    private var revocationReasonCode: UInt8 = 0, revocationTypeCode: UInt8 = 0
    /// When the App Store refunded or revoked the transaction; `nil` unless it was revoked. A
    /// revoked transaction grants nothing from this date on.
    public var revocationDate: Date?
    /// The purchase date of the original transaction (``originalTransactionId``); `nil` when the
    /// payload leaves it out.
    public var originalPurchaseDate: Date?
    /// Price in milli-units of `currency` (App Store Server convention), as written.
    public var price: Int64?
    /// The number of items bought (consumables can be more than 1); `nil` when not written.
    public var quantity: Int?
    /// The optional texts present, and the value of a closed field that is none of its known ones,
    /// as written (an integer in decimal).
    private var texts: [Field: String] = [:]

    /// The kind of product: auto-renewable, non-consumable, consumable or non-renewing.
    public var type: StoreProductType {
        get { value(typeCode, .type) ?? .nonConsumable }
        set { typeCode = code(newValue, .type) }
    }
    /// Whether the customer bought the product or has it through Family Sharing.
    public var inAppOwnershipType: OwnershipType {
        get { value(ownershipCode, .inAppOwnershipType) ?? .purchased }
        set { ownershipCode = code(newValue, .inAppOwnershipType) }
    }
    /// The App Store environment that signed the transaction; data from an environment other than
    /// the catalog's is refused. `nil` when not written.
    public var environment: StoreEnvironment? {
        get { value(environmentCode, .environment) }
        set { environmentCode = code(newValue, .environment) }
    }
    /// Whether the customer bought the product or a subscription renewed automatically; `nil`
    /// when not written.
    public var transactionReason: TransactionReason? {
        get { value(reasonCode, .transactionReason) }
        set { reasonCode = code(newValue, .transactionReason) }
    }
    /// The kind of offer this transaction was bought with (introductory, promotional, offer code,
    /// win-back); `nil` when it was bought at the regular price.
    public var offerType: OfferType? {
        get { value(offerTypeCode, .offerType) }
        set { offerTypeCode = code(newValue, .offerType) }
    }
    /// How the offer is paid: free trial, pay as you go or pay up front. `nil` when there is no
    /// offer, or in payloads that predate the field; for an introductory offer the catalog's
    /// `paymentMode` then decides.
    public var offerDiscountType: OfferDiscountType? {
        get { value(discountCode, .offerDiscountType) }
        set { discountCode = code(newValue, .offerDiscountType) }
    }
    /// Why the App Store refunded or revoked the transaction; `nil` unless it was revoked.
    public var revocationReason: RevocationReason? {
        get { value(revocationReasonCode, .revocationReason) }
        set { revocationReasonCode = code(newValue, .revocationReason) }
    }
    /// How the transaction was revoked (a full or prorated refund, or the family organiser
    /// stopped sharing); `nil` unless it was revoked.
    public var revocationType: RevocationType? {
        get { value(revocationTypeCode, .revocationType) }
        set { revocationTypeCode = code(newValue, .revocationType) }
    }

    /// The App Store's identifier for this subscription purchase or renewal across devices; `nil`
    /// for products that are not subscriptions.
    public var webOrderLineItemId: String? { get { texts[.webOrderLineItemId] } set { setText(newValue, .webOrderLineItemId) } }
    /// The subscription group the product belongs to; `nil` for products that are not
    /// auto-renewable subscriptions.
    public var subscriptionGroupIdentifier: String? { get { texts[.subscriptionGroupIdentifier] } set { setText(newValue, .subscriptionGroupIdentifier) } }
    /// The UUID the app attached to the purchase to link it to its own account system, as written;
    /// `nil` when the app gave none.
    public var appAccountToken: String? { get { texts[.appAccountToken] } set { setText(newValue, .appAccountToken) } }
    /// The identifier of the promotional offer, offer code or win-back offer; `nil` for
    /// introductory offers and regular prices.
    public var offerIdentifier: String? { get { texts[.offerIdentifier] } set { setText(newValue, .offerIdentifier) } }
    /// The offer's duration as ISO 8601 text (`P1W`), as written.
    public var offerPeriod: String? { get { texts[.offerPeriod] } set { setText(newValue, .offerPeriod) } }
    /// The three-letter ISO 3166-1 alpha-3 country code of the customer's App Store storefront.
    public var storefront: String? { get { texts[.storefront] } set { setText(newValue, .storefront) } }
    /// Apple's numeric identifier of the storefront, as written.
    public var storefrontId: String? { get { texts[.storefrontId] } set { setText(newValue, .storefrontId) } }
    /// The ISO 4217 currency code of ``price``; `nil` when the payload has no price.
    public var currency: String? { get { texts[.currency] } set { setText(newValue, .currency) } }

    /// Keeps an optional text in `texts` when it is present.
    private mutating func setText(_ text: String?, _ field: Field) {
        if text != nil || !texts.isEmpty { texts[field] = text }
    }

    /// The code of a value that none of its type's known values is: the value is in `texts`.
    private static let written: UInt8 = .max

    /// A closed field's value in one byte: 0 when absent, its position in its type's `known`
    /// list counting from 1, or ``written`` (the value then kept in `texts`, as written).
    private mutating func code<Value: KnownValues>(_ value: Value?, _ field: Field) -> UInt8 {
        if !texts.isEmpty { texts[field] = nil }
        guard let value else { return 0 }
        if let position = Value.known.firstIndex(of: value) { return UInt8(position + 1) }
        texts[field] = String(describing: value.rawValue)
        return Self.written
    }

    /// The value a closed field's code stands for (see ``code(_:_:)``).
    private func value<Value: KnownValues>(_ code: UInt8, _ field: Field) -> Value? {
        switch code {
        case 0: nil
        case Self.written: texts[field].flatMap(Value.RawValue.init).flatMap(Value.init(rawValue:))
        default: Value.known[Int(code) - 1]
        }
    }

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
        self.productId = productId
        self.bundleId = bundleId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.isUpgraded = isUpgraded
        self.signedDate = signedDate
        self.revocationDate = revocationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.price = price
        self.quantity = quantity
        self.type = type
        self.inAppOwnershipType = inAppOwnershipType
        self.environment = environment
        self.transactionReason = transactionReason
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.webOrderLineItemId = webOrderLineItemId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.appAccountToken = appAccountToken
        self.offerIdentifier = offerIdentifier
        self.offerPeriod = offerPeriod
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.currency = currency
    }
}
