extension StoreEvent {
    /// The fact as a journal checkpoint keeps it, read back by ``EventDecoder/fact(line:)``: a
    /// transaction's or renewal info's `jsonRepresentation`; an app transaction or a grant in the
    /// shape its decoder reads, with how it was signed (``isSignedKey``, ``keyIdKey``).
    package var factRepresentation: JSONValue {
        switch self {
        case .transaction(let t): return t.jsonRepresentation
        case .renewalInfo(let r): return r.jsonRepresentation
        case .appTransaction(let a):
            var object: [String: JSONValue] = ["appTransactionId": .string(a.appTransactionId), Self.isSignedKey: .bool(a.isSigned)]
            object["bundleId"] = a.bundleId.map(JSONValue.string)
            object["originalApplicationVersion"] = a.originalApplicationVersion.map(JSONValue.string)
            object["originalPurchaseDate"] = a.originalPurchaseDate.map(JSONValue.milliseconds)
            object["receiptType"] = a.environment.map { .string($0.rawValue) }
            object["receiptCreationDate"] = a.signedDate.map(JSONValue.milliseconds)
            return .object(object)
        case .grant(let g):
            var object: [String: JSONValue] = [
                "grantId": .string(g.grantId), "entitlement": .string(g.entitlement), "bundleId": .string(g.bundleId),
                "signedDate": .milliseconds(g.signedDate), "revoked": .bool(g.revoked),
            ]
            object["expiresDate"] = g.expiresDate.map(JSONValue.milliseconds)
            object["reason"] = g.reason.map(JSONValue.string)
            object[Self.keyIdKey] = g.keyId.map(JSONValue.string)
            return .object(object)
        }
    }

    /// The member of a kept app transaction that says it came in a trusted JWS.
    static let isSignedKey = "isSigned"
    /// The member of a kept grant that names the grant key that signed it.
    static let keyIdKey = "keyId"
}
