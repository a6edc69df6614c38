#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A subscription's renewal state: StoreKit 2 `RenewalInfo.jsonRepresentation`, the same schema as
/// the App Store Server's `JWSRenewalInfoDecodedPayload`. Keyed by `originalTransactionId`; the
/// version with the newest `signedDate` wins.
public struct RenewalInfo: Sendable, Hashable {
    public var originalTransactionId: String
    /// Whether the subscription renews at the end of the period (`autoRenewStatus` 1).
    public var autoRenewStatus: Bool?
    /// The product the next renewal will be for (differs from the current one after a downgrade
    /// or crossgrade that takes effect at renewal).
    public var autoRenewProductId: String?
    /// The current product, when the payload carries it.
    public var productId: String?
    public var isInBillingRetryPeriod: Bool?
    /// End of the billing grace period; access continues until then.
    public var gracePeriodExpiresDate: Date?
    public var expirationIntent: ExpirationIntent?
    public var signedDate: Date?
    public var renewalDate: Date?
    public var recentSubscriptionStartDate: Date?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    public var environment: StoreEnvironment?

    public init(
        originalTransactionId: String, autoRenewStatus: Bool? = nil, autoRenewProductId: String? = nil, productId: String? = nil,
        isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil, expirationIntent: ExpirationIntent? = nil,
        signedDate: Date? = nil, renewalDate: Date? = nil, recentSubscriptionStartDate: Date? = nil, offerType: OfferType? = nil,
        offerIdentifier: String? = nil, offerDiscountType: OfferDiscountType? = nil, environment: StoreEnvironment? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.signedDate = signedDate
        self.renewalDate = renewalDate
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.environment = environment
    }
}
