import Testing
@testable import PropertyList

/// A dictionary keeps its members in key order: look-ups, edits and equality behave as a
/// `Dictionary`'s, a walk in key order finds each field once, and no operation costs the
/// dictionary's size per key, so a file of 60,000 keys in any order is read and searched in
/// moments (a linear search per key took minutes at that size).
@Suite struct PropertyListDictionaryTests {
    @Test func behavesAsADictionaryInKeyOrder() {
        var dictionary: PropertyListDictionary = ["b": .integer(2), "a": .integer(1)]
        #expect(dictionary.map(\.key) == ["a", "b"])
        dictionary["c"] = .integer(3)
        dictionary["0"] = .integer(0)
        dictionary["b"] = .string("two")
        dictionary["absent"] = nil
        #expect(dictionary.map(\.key) == ["0", "a", "b", "c"])
        #expect(dictionary["b"] == .string("two") && dictionary["ab"] == nil && dictionary[""] == nil && dictionary["d"] == nil)
        dictionary["a"] = nil
        #expect(dictionary.map(\.key) == ["0", "b", "c"])
        #expect(dictionary == PropertyListDictionary(uniqueKeysWithValues: [("c", .integer(3)), ("b", .string("two")), ("0", .integer(0))]))
        // Canonically equivalent texts are one key, as in a `Dictionary`.
        dictionary["\u{E9}"] = .boolean(true)
        #expect(dictionary["e\u{301}"] == .boolean(true) && dictionary.count == 4)
    }

    @Test func aWalkInKeyOrderFindsEachPresentKeyOnce() {
        let dictionary: PropertyListDictionary = ["active": .boolean(true), "other": .integer(1), "state": .string("s"), "zz": .integer(2)]
        var position = 0
        let found = ["absent", "active", "missing", "state", "willRenew"].map { dictionary.value(forKey: $0, from: &position) }
        #expect(found == [nil, .boolean(true), nil, .string("s"), nil])
    }

    @Test(.timeLimit(.minutes(1)))
    func sixtyThousandKeysInAnyOrderAreReadAndSearchedWithoutQuadraticWork() throws {
        let count = 60_000
        let keys = (0..<count).map { "key\($0)" }
        for order in [keys, keys.reversed(), keys.shuffled()] {
            let dictionary = PropertyListDictionary(uniqueKeysWithValues: order.map { ($0, .boolean(true)) })
            let decoded = try PropertyListCodec.decode(PropertyListCodec.encode(.dictionary(dictionary)))
            #expect(decoded == .dictionary(dictionary))
            var built = PropertyListDictionary()
            for key in keys.sorted() { built[key] = .boolean(true) }
            #expect(built == dictionary)
            #expect(keys.allSatisfy { dictionary[$0] != nil } && dictionary["key"] == nil)
        }
        // Stored out of order, as a writer that does not sort its keys leaves them.
        let unsorted = BinaryPropertyListKeyOrderTests.dictionary((0..<200).reversed().map { "k\($0)" })
        #expect(try PropertyListCodec.decode(unsorted).dictionaryValue?.map(\.key) == (0..<200).map { "k\($0)" }.sorted())
        let xml = "<plist version=\"1.0\"><dict>" + keys.reversed().map { "<key>\($0)</key><true/>" }.joined() + "</dict></plist>"
        #expect(try PropertyListCodec.decode(Array(xml.utf8)).dictionaryValue?.map(\.key) == keys.sorted())
    }
}
