#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RenewalInfo {
    /// The renewal info in StoreKit 2's `jsonRepresentation` shape (the server's
    /// `JWSRenewalInfoDecodedPayload`): the field names ``EventDecoder`` reads, flags as 0/1,
    /// dates as milliseconds since 1970 that read back exactly, absent optionals omitted.
    ///
    /// ``EventDecoder`` recognises a renewal info by one of its renewal fields
    /// (`autoRenewStatus`, `isInBillingRetryPeriod`, ...); one that has none reads back as nothing.
    public var jsonRepresentation: JSONValue {
        var object: [String: JSONValue] = ["originalTransactionId": .string(originalTransactionId)]
        func put(_ key: String, _ value: JSONValue?) { if let value { object[key] = value } }
        put("autoRenewStatus", autoRenewStatus.map { .int($0 ? 1 : 0) })
        put("autoRenewProductId", autoRenewProductId.map(JSONValue.string))
        put("productId", productId.map(JSONValue.string))
        put("isInBillingRetryPeriod", isInBillingRetryPeriod.map(JSONValue.bool))
        put("gracePeriodExpiresDate", gracePeriodExpiresDate.map(JSONValue.milliseconds))
        put("expirationIntent", expirationIntent.map { .int(Int64($0.rawValue)) })
        put("signedDate", signedDate.map(JSONValue.milliseconds))
        put("renewalDate", renewalDate.map(JSONValue.milliseconds))
        put("recentSubscriptionStartDate", recentSubscriptionStartDate.map(JSONValue.milliseconds))
        put("offerType", offerType.map { .int(Int64($0.rawValue)) })
        put("offerIdentifier", offerIdentifier.map(JSONValue.string))
        put("offerDiscountType", offerDiscountType.map { .string($0.rawValue) })
        put("environment", environment.map { .string($0.rawValue) })
        return .object(object)
    }
}
