import Foundation
import PropertyList
import Testing
@testable import EntitlementModel

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
        #expect(EntitlementTable().isEmpty)
        #expect(EntitlementTable()["plus"] == nil)
    }

    @Test func listsItsEntriesInAscendingIDOrder() {
        let table = EntitlementTable(Self.statuses)
        #expect(table.keys == Self.statuses.keys.sorted())
        #expect(table.map(\.key) == table.keys)
        #expect(table.map(\.value) == table.values)
        #expect(table.values == Self.statuses.keys.sorted().map { Self.statuses[$0]! })
    }

    @Test func aLiteralIsTheTableOfItsEntries() {
        let literal: EntitlementTable = ["pro": Self.pro, "plus": Self.plus, "basic": Self.basic, "Zoë ✓": Self.pro]
        #expect(literal == EntitlementTable(Self.statuses))
        #expect(literal.hashValue == EntitlementTable(Self.statuses).hashValue)
        let empty: EntitlementTable = [:]
        #expect(empty == EntitlementTable())
        #expect(empty.description == "[:]")
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

    @Test func settingAStatusAddsReplacesOrRemovesIt() {
        var table = EntitlementTable(Self.statuses)
        table["aardvark"] = Self.plus
        table["plus"] = Self.basic
        table["pro"] = nil
        table["missing"] = nil
        var expected = Self.statuses
        expected["aardvark"] = Self.plus
        expected["plus"] = Self.basic
        expected["pro"] = nil
        #expect(table == EntitlementTable(expected))
        #expect(table.keys == expected.keys.sorted())
        #expect(table["aardvark"] == Self.plus)
    }

    @Test func accessIsTheStatusAccessWithoutItsProductID() {
        let table = EntitlementTable(Self.statuses)
        for (id, status) in Self.statuses {
            let access = table.access(of: id)
            #expect(access?.period == status.accessPeriod && access?.state == status.state, "\(id)")
        }
        #expect(table.access(of: "missing") == nil)
    }

    /// A file's entries are read in the order it holds them: a writer that sorts its keys
    /// needs no sort on reading, any other order is put in order, and the same id twice (which
    /// the property-list readers already refuse) is refused rather than kept twice.
    @Test func entriesReadInAnyOrderMakeTheSameTable() throws {
        let rows = Self.statuses.keys.sorted().map { ($0, Self.statuses[$0]!) }
        for order in [rows, rows.reversed(), [rows[2], rows[0], rows[3], rows[1]]] {
            var builder = EntitlementTable.Builder(capacity: order.count)
            for (id, status) in order { builder.append(id, status: status) }
            #expect(try builder.finish().get() == EntitlementTable(Self.statuses))
        }
        var builder = EntitlementTable.Builder(capacity: 3)
        builder.append("pro", status: Self.pro)
        builder.append("plus", status: Self.plus)
        builder.append("pro", status: Self.basic)
        #expect(throws: EntitlementTable.Builder.DuplicateID.self) { try builder.finish().get() }
    }

    /// A snapshot whose entries hold texts in UTF-16 (ids and product ids) and none at all
    /// decodes, in place and through the XML tree, to the table that was written.
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

/// A long product id that a file shares among many entries (one string object, as the binary
/// encoder writes equal strings) is kept once, by the in-place reading and the tree's, so such
/// a file cannot make a snapshot many times its own size.
@Suite struct EntitlementTableSharedProductIDTests {
    @Test func aSharedLongProductIDIsKeptOnce() throws {
        let productID = "com.example." + String(repeating: "long.", count: 2_000) + "ünïcode"  // UTF-16 in the file
        let ascii = "com.example." + String(repeating: "ascii.", count: 2_000)
        var statuses: [String: EntitlementStatus] = [:]
        for index in 0..<500 {
            statuses["extra.\(index)"] = EntitlementStatus(active: true, state: .purchased, productId: index % 2 == 0 ? productID : ascii)
        }
        let snapshot = EntitlementSnapshot(generation: 1, issuedAt: Date(timeIntervalSinceReferenceDate: 800_000_000), nextTransition: nil, entitlements: statuses)
        let bytes = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .binary)
        #expect(bytes.count < 100_000)
        let kept = productID.utf8.count + ascii.utf8.count
        let inPlace = try EntitlementSnapshot.decode(fromSuiteBytes: bytes)
        let throughTree = try EntitlementSnapshot.decodeThroughValues(fromSuiteBytes: bytes)
        for decoded in [inPlace, throughTree] {
            #expect(decoded == snapshot)
            #expect(decoded.entitlements.productIDByteCount == kept)
        }
    }
}
