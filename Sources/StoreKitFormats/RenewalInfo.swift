#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A subscription's renewal state: StoreKit 2 `RenewalInfo.jsonRepresentation`, the same schema as
/// the App Store Server's `JWSRenewalInfoDecodedPayload`. Keyed by `originalTransactionId`; the
/// version with the newest `signedDate` wins.
public struct RenewalInfo: Sendable, Hashable {
    /// The ``StoreTransaction/originalTransactionId`` of the subscription this renewal state is for.
    public var originalTransactionId: String
    /// Whether the subscription renews at the end of the period (`autoRenewStatus` 1).
    public var autoRenewStatus: Bool?
    /// The product the next renewal will be for (differs from the current one after a downgrade
    /// or crossgrade that takes effect at renewal).
    public var autoRenewProductId: String?
    /// The current product, when the payload carries it.
    public var productId: String?
    /// Whether the App Store is still trying to renew a subscription whose renewal failed to
    /// bill; `nil` when not written. Access continues only until ``gracePeriodExpiresDate``.
    public var isInBillingRetryPeriod: Bool?
    /// End of the billing grace period; access continues until then.
    public var gracePeriodExpiresDate: Date?
    /// Why the subscription expired (cancelled, billing error, price increase declined, product
    /// unavailable); `nil` while it has not expired.
    public var expirationIntent: ExpirationIntent?
    /// When Apple signed this renewal info; of two versions for one ``originalTransactionId``
    /// the newer wins. `nil` when not written.
    public var signedDate: Date?
    /// When the subscription next renews (or would have renewed, for one that will not); `nil`
    /// when not written.
    public var renewalDate: Date?
    /// The start of the most recent run of continuous subscription, ignoring lapses of up to 60
    /// days; `nil` when not written. Informational: the engine does not use it.
    public var recentSubscriptionStartDate: Date?
    /// The kind of offer that applies at the next renewal; `nil` for the regular price.
    public var offerType: OfferType?
    /// The identifier of the promotional offer or offer code that applies at the next renewal.
    public var offerIdentifier: String?
    /// How the offer that applies at the next renewal is paid; `nil` when there is none.
    public var offerDiscountType: OfferDiscountType?
    /// The App Store environment that signed this renewal info; `nil` when not written.
    public var environment: StoreEnvironment?

    /// Renewal info with the given fields; those not passed are absent, as when the payload
    /// leaves them out.
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
