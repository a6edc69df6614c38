import Foundation
import PropertyList

/// A dictionary shaped like the entitlement snapshot the broker publishes (same keys and kinds),
/// built here so these tests need nothing beyond the PropertyList module.
enum SnapshotShapedValue {
    static func make(entitlements: Int) -> PropertyListValue {
        let issuedAt = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        var table: PropertyListDictionary = [:]
        for index in 0..<entitlements {
            var entry: PropertyListDictionary = [
                "active": .boolean(index % 3 != 0),
                "state": .string(["subscribed", "expired", "inGracePeriod", "inBillingRetry"][index % 4]),
                "periodType": .string(index % 5 == 0 ? "trial" : "normal"),
                "willRenew": .boolean(index % 2 == 0),
                "ownership": .string(index % 7 == 0 ? "familyShared" : "purchased"),
            ]
            if index % 6 != 5 { entry["expiresAt"] = .date(issuedAt.addingTimeInterval(Double(index) * 3600 + 0.5)) }
            if index % 4 != 3 { entry["productId"] = .string("com.example.app.feature\(index).monthly") }
            table["entitlement.feature-\(index)"] = .dictionary(entry)
        }
        return .dictionary([
            "schemaVersion": .integer(1),
            "generation": .integer(1_234_567),
            "issuedAt": .date(issuedAt),
            "nextTransition": .date(issuedAt.addingTimeInterval(3600)),
            "entitlements": .dictionary(table),
        ])
    }

    /// `snapshot` with the boot it was issued in, as a daemon that can read the boot clock
    /// writes it: the boot id (a string) and `CLOCK_BOOTTIME` at issue (an integer, nanoseconds).
    static func withBootReading(_ snapshot: PropertyListValue) -> PropertyListValue {
        guard case .dictionary(var root) = snapshot else { return snapshot }
        root["bootId"] = .string("edd13141-5ce6-464c-88c4-bad0766df477")
        root["bootTimeNanoseconds"] = .integer(1_234_567_890_123)
        return .dictionary(root)
    }
}
