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
        var object: [String: JSONValue] = [:]
        for field in EventDecoder.TransactionField.allCases {
            let value: JSONValue?
            switch field {
            case .transactionId: value = .string(transactionId)
            case .originalTransactionId: value = .string(originalTransactionId)
            case .webOrderLineItemId: value = webOrderLineItemId.map(JSONValue.string)
            case .bundleId: value = bundleId.map(JSONValue.string)
            case .productId: value = .string(productId)
            case .subscriptionGroupIdentifier: value = subscriptionGroupIdentifier.map(JSONValue.string)
            case .purchaseDate: value = .milliseconds(purchaseDate)
            case .originalPurchaseDate: value = originalPurchaseDate.map(JSONValue.milliseconds)
            case .expiresDate: value = expiresDate.map(JSONValue.milliseconds)
            case .quantity: value = quantity.map { .int(Int64($0)) }
            case .type: value = .string(type.rawValue)
            case .appAccountToken: value = appAccountToken.map(JSONValue.string)
            case .inAppOwnershipType: value = .string(inAppOwnershipType.rawValue)
            case .signedDate: value = signedDate.map(JSONValue.milliseconds)
            case .revocationReason: value = revocationReason.map { .int(Int64($0.rawValue)) }
            case .revocationDate: value = revocationDate.map(JSONValue.milliseconds)
            case .revocationType: value = revocationType.map { .string($0.rawValue) }
            case .isUpgraded: value = isUpgraded ? .bool(true) : nil
            case .offerType: value = offerType.map { .int(Int64($0.rawValue)) }
            case .offerIdentifier: value = offerIdentifier.map(JSONValue.string)
            case .offerDiscountType: value = offerDiscountType.map { .string($0.rawValue) }
            case .offerPeriod: value = offerPeriod.map(JSONValue.string)
            case .environment: value = environment.map { .string($0.rawValue) }
            case .storefront: value = storefront.map(JSONValue.string)
            case .storefrontId: value = storefrontId.map(JSONValue.string)
            case .transactionReason: value = transactionReason.map { .string($0.rawValue) }
            case .price: value = price.map(JSONValue.int)
            case .currency: value = currency.map(JSONValue.string)
            }
            if let value { object[field.rawValue] = value }
        }
        return .object(object)
    }
}
