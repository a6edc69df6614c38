import EntitlementDefaults
import Foundation
import Testing
import TestSupport
@testable import Entitlements
@testable import StoreKitFormats

/// Shared test data: the sample catalog in `Shared/`, product ids, and builders for input lines.
enum Fixtures {
    /// The package root, found from this file's path (`<root>/Tests/EntitlementModelTests/Fixtures.swift`).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let catalogPath = packageRoot + "/Shared/Catalog.json"

    static func catalog() throws -> Catalog { try Catalog.load(path: catalogPath) }

    static let monthly = "com.irenews.geko.plus.monthly"
    static let annual = "com.irenews.geko.plus.annual"
    static let lifetime = "com.irenews.geko.plus.lifetime"
    static let bundleId = "com.irenews.geko"

    /// Milliseconds since 1970 for an ISO 8601 instant.
    static func ms(_ iso: String) -> Double {
        guard let date = ISO8601.date(from: iso) else {
            Issue.record("bad fixture date \(iso)")
            return 0
        }
        return date.timeIntervalSince1970 * 1000
    }

    static func date(_ iso: String) -> Date {
        Date(timeIntervalSince1970: ms(iso) / 1000)
    }

    /// A transaction line; `fields` override or add keys (`.null` removes one).
    static func transaction(
        id: String, original: String? = nil, product: String = monthly, purchased: String, expires: String? = nil,
        signed: String? = nil, _ fields: [String: JSONValue] = [:]
    ) -> String {
        var object: [String: JSONValue] = [
            "transactionId": .string(id),
            "originalTransactionId": .string(original ?? id),
            "productId": .string(product),
            "bundleId": .string(bundleId),
            "purchaseDate": .double(ms(purchased)),
            "signedDate": .double(ms(signed ?? purchased)),
            "type": .string(expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription"),
            "inAppOwnershipType": "PURCHASED",
            "environment": "Xcode",
        ]
        if let expires { object["expiresDate"] = .double(ms(expires)) }
        for (key, value) in fields {
            if value == .null { object[key] = nil } else { object[key] = value }
        }
        return JSONValue.object(object).serialized
    }

    static func renewal(original: String, signed: String, _ fields: [String: JSONValue] = [:]) -> String {
        var object: [String: JSONValue] = [
            "originalTransactionId": .string(original),
            "autoRenewProductId": .string(monthly),
            "autoRenewStatus": .int(1),
            "signedDate": .double(ms(signed)),
            "environment": "Xcode",
        ]
        for (key, value) in fields { object[key] = value }
        return JSONValue.object(object).serialized
    }

    /// Apple's Xcode-signed sample transaction (a one-month trial), retargeted at the sample catalog.
    static let xcodeSample = """
        {"appAccountToken":"","bundleId":"com.irenews.geko","deviceVerification":"dGVzdA==","deviceVerificationNonce":"1d3b7fbb-7c4d-4e3a-9f0a-3c1a2b4c5d6e","environment":"Xcode","expiresDate":1700358336049.7297,"inAppOwnershipType":"PURCHASED","isUpgraded":false,"offerDiscountType":"FREE_TRIAL","offerType":1,"originalPurchaseDate":1697679936049.7297,"originalTransactionId":"0","price":0,"currency":"USD","productId":"com.irenews.geko.plus.monthly","purchaseDate":1697679936049.7297,"quantity":1,"signedDate":1697679936056.4709,"storefront":"USA","storefrontId":"143441","subscriptionGroupIdentifier":"21400001","transactionId":"0","transactionReason":"PURCHASE","type":"Auto-Renewable Subscription","webOrderLineItemId":"0"}
        """

    static func events(_ lines: [String]) throws -> [StoreEvent] {
        var events: [StoreEvent] = []
        for line in lines { events += try EventDecoder.decode(line: line.utf8, signatures: .optional) }
        return events
    }

    /// A JWS compact string of `payload`, signed by the test key with a one-certificate chain
    /// (intact, not trusted: accepted where signatures are optional).
    static func jws(_ payload: String) -> String { TestSigner.jws(payload) }
}
