import Foundation
import PropertyList
import Testing
@testable import Entitlements

/// ``EntitlementTable``: what a `[String: EntitlementStatus]` answered, it answers the same, in
/// ascending id order, each id once; and a decoded table equals the one that was written,
/// whatever order the file held its entries in.
@Suite struct EntitlementTableTests {
    static let end = Date(timeIntervalSinceReferenceDate: 800_000_000)  // whole seconds: XML dates have no fraction
    static let plus = EntitlementStatus(
        active: true, state: .subscribed, periodType: .trial, expiresAt: end, productId: "com.irenews.geko.plus.monthly",
        willRenew: true, ownership: .familyShared)
    static let pro = EntitlementStatus(active: true, state: .purchased, productId: "pro")
    static let basic = EntitlementStatus.notPurchased

    static var statuses: [String: EntitlementStatus] { ["plus": plus, "pro": pro, "basic": basic, "Zoë ✓": pro] }

    @Test func answersAsTheDictionaryItIsMadeFrom() {
        let table = EntitlementTable(Self.statuses)
        #expect(table.count == 4)
        #expect(!table.isEmpty)
        for (id, status) in Self.statuses { #expect(table[id] == status, "\(id)") }
        #expect(table["missing"] == nil)
        #expect(table["Plus"] == nil)
        let empty: EntitlementTable = [:]
        #expect(empty.isEmpty)
        #expect(empty["plus"] == nil)
    }

    @Test func listsItsEntriesInAscendingIDOrder() {
        let table = EntitlementTable(Self.statuses)
        #expect(table.keys == Self.statuses.keys.sorted())
        #expect(table.map(\.key) == table.keys)
        #expect(table.map(\.value) == Self.statuses.keys.sorted().map { Self.statuses[$0]! })
    }

    @Test func aLiteralIsTheTableOfItsEntries() {
        let literal: EntitlementTable = ["pro": Self.pro, "plus": Self.plus, "basic": Self.basic, "Zoë ✓": Self.pro]
        #expect(literal == EntitlementTable(Self.statuses))
        #expect(literal.hashValue == EntitlementTable(Self.statuses).hashValue)
        let empty: EntitlementTable = [:]
        #expect(empty == EntitlementTable([:]))
    }

    @Test func equalityIsTheStatusesEqualityIDByID() {
        let table = EntitlementTable(Self.statuses)
        var changed = Self.statuses
        changed["plus"]?.productId = "com.irenews.geko.plus.yearly"
        #expect(table != EntitlementTable(changed))
        changed["plus"]?.productId = nil
        #expect(table != EntitlementTable(changed))
        changed = Self.statuses
        changed["plus"]?.expiresAt = nil
        #expect(table != EntitlementTable(changed))
        changed = Self.statuses
        changed["plus"]?.ownership = .purchased
        #expect(table != EntitlementTable(changed))
        changed = Self.statuses
        changed["extra"] = Self.basic
        #expect(table != EntitlementTable(changed))
        // Product ids and ids compare as strings: canonically equivalent texts are equal, as in a dictionary.
        let composed: EntitlementTable = ["caf\u{E9}": EntitlementStatus(active: true, state: .purchased, productId: "caf\u{E9}")]
        let decomposed: EntitlementTable = ["cafe\u{301}": EntitlementStatus(active: true, state: .purchased, productId: "cafe\u{301}")]
        #expect(composed == decomposed)
        #expect(composed.hashValue == decomposed.hashValue)
        #expect(decomposed["caf\u{E9}"]?.productId == "cafe\u{301}")
    }

    /// A snapshot whose entries hold texts in UTF-16 (ids and product ids) and none at all
    /// decodes, from binary and from XML, to the table that was written.
    @Test func decodedTablesEqualWhatWasWritten() throws {
        var statuses = Self.statuses
        statuses["ünïcode"] = EntitlementStatus(active: false, state: .expired, expiresAt: Self.end, productId: "produit.été.✓")
        statuses["none"] = EntitlementStatus(active: false, state: .notPurchased, expiresAt: nil, productId: nil)
        let snapshot = EntitlementSnapshot(generation: 9, issuedAt: Self.end.addingTimeInterval(-60), nextTransition: nil, entitlements: statuses)
        for format in [PropertyListCodec.Format.binary, .xml] {
            let bytes = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: format)
            let decoded = try EntitlementSnapshot.decode(fromSuiteBytes: bytes)
            #expect(decoded == snapshot, "\(format)")
            #expect(decoded.entitlements.keys == statuses.keys.sorted(), "\(format)")
            for (id, status) in statuses { #expect(decoded.entitlements[id] == status, "\(format) \(id)") }
        }
    }
}
