import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation

/// The package's sample catalog (`Shared/Catalog.json`) and snapshots the real engine computes
/// from StoreKit-shaped transactions, for the feature-gate suites of this target.
enum SampleCatalog {
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/Shared/Catalog.json"
    }()

    static func load() throws -> Catalog { try Catalog.load(path: path) }

    static let monthly = "com.irenews.geko.plus.monthly"

    static func date(_ iso: String) -> Date { ISO8601.date(from: iso) ?? .distantPast }

    /// A monthly-subscription transaction; `trial` makes it a free-trial introductory offer.
    static func subscription(id: String, purchased: String, expires: String, trial: Bool = false) -> String {
        var object: [String: JSONValue] = [
            "transactionId": .string(id), "originalTransactionId": .string(id), "productId": .string(monthly),
            "bundleId": "com.irenews.geko", "environment": "Xcode", "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED",
            "purchaseDate": .double(date(purchased).timeIntervalSince1970 * 1000),
            "signedDate": .double(date(purchased).timeIntervalSince1970 * 1000),
            "expiresDate": .double(date(expires).timeIntervalSince1970 * 1000),
        ]
        if trial {
            object["offerType"] = .int(1)
            object["offerDiscountType"] = "FREE_TRIAL"
        }
        return JSONValue.object(object).serialized
    }

    /// What the daemon would publish for `lines` at `now`.
    static func snapshot(_ lines: [String], now: Date, generation: Int64 = 1) throws -> EntitlementSnapshot {
        var facts = FactStore()
        for line in lines {
            for event in try EventDecoder.decode(line: Data(line.utf8), signatures: .optional) { _ = facts.insert(event) }
        }
        return EntitlementEngine(catalog: try load()).evaluate(facts, now: now).snapshot(generation: generation)
    }
}
