extension RenewalInfo {
    /// The renewal info in StoreKit 2's `jsonRepresentation` shape (the server's
    /// `JWSRenewalInfoDecodedPayload`): the field names ``EventDecoder`` reads, flags as 0/1,
    /// dates as milliseconds since 1970 that read back exactly, absent optionals omitted.
    ///
    /// ``EventDecoder`` recognises a renewal info by one of its renewal fields
    /// (`autoRenewStatus`, `isInBillingRetryPeriod`, ...); one that has none reads back as nothing.
    public var jsonRepresentation: JSONValue {
        var object: [String: JSONValue] = [:]
        for field in EventDecoder.RenewalInfoField.allCases {
            let value: JSONValue?
            switch field {
            case .originalTransactionId: value = .string(originalTransactionId)
            case .autoRenewStatus: value = autoRenewStatus.map { .int($0 ? 1 : 0) }
            case .autoRenewProductId: value = autoRenewProductId.map(JSONValue.string)
            case .productId: value = productId.map(JSONValue.string)
            case .isInBillingRetryPeriod: value = isInBillingRetryPeriod.map(JSONValue.bool)
            case .gracePeriodExpiresDate: value = gracePeriodExpiresDate.map(JSONValue.milliseconds)
            case .expirationIntent: value = expirationIntent.map { .int(Int64($0.rawValue)) }
            case .signedDate: value = signedDate.map(JSONValue.milliseconds)
            case .renewalDate: value = renewalDate.map(JSONValue.milliseconds)
            case .recentSubscriptionStartDate: value = recentSubscriptionStartDate.map(JSONValue.milliseconds)
            case .offerType: value = offerType.map { .int(Int64($0.rawValue)) }
            case .offerIdentifier: value = offerIdentifier.map(JSONValue.string)
            case .offerDiscountType: value = offerDiscountType.map { .string($0.rawValue) }
            case .environment: value = environment.map { .string($0.rawValue) }
            }
            if let value { object[field.rawValue] = value }
        }
        return .object(object)
    }
}
