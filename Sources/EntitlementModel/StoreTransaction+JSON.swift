#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoreTransaction {
    /// The transaction in StoreKit 2's `jsonRepresentation` shape (the server's
    /// `JWSTransactionDecodedPayload`): the field names ``EventDecoder`` reads, dates as
    /// milliseconds since 1970, absent optionals omitted. What tools and tests feed to `ingest`.
    public var jsonRepresentation: JSONValue {
        var object: [String: JSONValue] = [
            "transactionId": .string(transactionId),
            "originalTransactionId": .string(originalTransactionId),
            "productId": .string(productId),
            "purchaseDate": Self.milliseconds(purchaseDate),
            "type": .string(type.rawValue),
            "inAppOwnershipType": .string(inAppOwnershipType.rawValue),
        ]
        func put(_ key: String, _ value: JSONValue?) { if let value { object[key] = value } }
        put("webOrderLineItemId", webOrderLineItemId.map(JSONValue.string))
        put("bundleId", bundleId.map(JSONValue.string))
        put("subscriptionGroupIdentifier", subscriptionGroupIdentifier.map(JSONValue.string))
        put("originalPurchaseDate", originalPurchaseDate.map(Self.milliseconds))
        put("expiresDate", expiresDate.map(Self.milliseconds))
        put("quantity", quantity.map { .int(Int64($0)) })
        put("appAccountToken", appAccountToken.map(JSONValue.string))
        put("signedDate", signedDate.map(Self.milliseconds))
        put("revocationReason", revocationReason.map { .int(Int64($0.rawValue)) })
        put("revocationDate", revocationDate.map(Self.milliseconds))
        put("revocationType", revocationType.map { .string($0.rawValue) })
        if isUpgraded { object["isUpgraded"] = true }
        put("offerType", offerType.map { .int(Int64($0.rawValue)) })
        put("offerIdentifier", offerIdentifier.map(JSONValue.string))
        put("offerDiscountType", offerDiscountType.map { .string($0.rawValue) })
        put("offerPeriod", offerPeriod.map(JSONValue.string))
        put("environment", environment.map { .string($0.rawValue) })
        put("storefront", storefront.map(JSONValue.string))
        put("storefrontId", storefrontId.map(JSONValue.string))
        put("transactionReason", transactionReason.map { .string($0.rawValue) })
        put("price", price.map(JSONValue.int))
        put("currency", currency.map(JSONValue.string))
        return .object(object)
    }

    private static func milliseconds(_ date: Date) -> JSONValue { .milliseconds(date) }
}
