import Entitlements
import StoreKitFormats
import Foundation
import PropertyList
import Testing

/// Snapshot fields the corpus found accepted when they should not be: dates far outside any
/// real instant (which trapped ISO 8601 formatting in `status`, or unlocked until year 100000)
/// and a generation written as a real.
@Suite("Snapshot decoding refuses absurd dates and loose types")
struct SnapshotDecodingFixTests {
    static func encoded(_ change: (inout PropertyListDictionary, inout PropertyListDictionary) -> Void) -> PropertyListValue {
        var entry: PropertyListDictionary = [
            "active": .boolean(true), "state": .string("subscribed"), "periodType": .string("normal"),
            "willRenew": .boolean(true), "ownership": .string("purchased"),
            "expiresAt": .date(Date(timeIntervalSince1970: 1_900_000_000)),
        ]
        var root: PropertyListDictionary = [
            "schemaVersion": .integer(1), "generation": .integer(7), "issuedAt": .date(Date(timeIntervalSince1970: 1_800_000_000)),
        ]
        change(&root, &entry)
        root["entitlements"] = .dictionary(["plus": .dictionary(entry)])
        return .dictionary(root)
    }

    @Test("A sane snapshot still decodes")
    func saneSnapshot() throws {
        let snapshot = try EntitlementSnapshot(propertyList: Self.encoded { _, _ in })
        #expect(snapshot.generation == 7)
        #expect(snapshot.entitlements["plus"]?.active == true)
    }

    @Test("Dates outside 2008...2300 are refused, naming the field", arguments: [
        ("issuedAt", 1.0e300), ("issuedAt", -1.0e9), ("nextTransition", -1.0e300), ("expiresAt", 3.1e12),
        ("expiresAt", 0.0), ("issuedAt", 10_413_792_001.0),
    ] as [(String, Double)])
    func absurdDates(field: String, secondsSince1970: Double) {
        let value = Self.encoded { root, entry in
            let date = PropertyListValue.date(Date(timeIntervalSince1970: secondsSince1970))
            if field == "expiresAt" { entry[field] = date } else { root[field] = date }
        }
        #expect {
            _ = try EntitlementSnapshot(propertyList: value)
        } throws: { error in
            "\(error)".contains(field) && "\(error)".contains("outside 2008...2300")
        }
    }

    @Test("The formatted bounds themselves decode and print")
    func boundsFormat() throws {
        for seconds in [1_199_145_600.0, 10_413_792_000.0] {
            let snapshot = try EntitlementSnapshot(propertyList: Self.encoded { root, _ in
                root["issuedAt"] = .date(Date(timeIntervalSince1970: seconds))
            })
            #expect(ISO8601.string(from: snapshot.issuedAt).hasSuffix("-01-01T00:00:00Z"))
        }
    }

    @Test("A generation written as a real is a wrong type")
    func generationAsReal() {
        #expect(throws: SnapshotDecodingError.self) {
            try EntitlementSnapshot(propertyList: Self.encoded { root, _ in root["generation"] = .real(8) })
        }
    }
}
