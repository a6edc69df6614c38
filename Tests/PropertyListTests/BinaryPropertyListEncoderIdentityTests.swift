import Foundation
import Testing
@testable import PropertyList

/// The encoder's output is canonical: one value always gives the same bytes, and what is read
/// back from them is written again byte for byte (so no layout choice depends on anything but
/// the value), with fixed bytes for a snapshot-shaped file (so a change of layout cannot pass
/// unseen). Foundation and Python's `plistlib` check separately that the bytes mean the value.
@Suite struct BinaryPropertyListEncoderIdentityTests {
    static func expectCanonical(_ value: PropertyListValue, _ label: @autoclosure () -> String = "") throws {
        let first = try BinaryPropertyListEncoder.encode(value)
        #expect(try BinaryPropertyListEncoder.encode(value) == first, "not repeatable: \(label())")
        #expect(try BinaryPropertyListEncoder.encode(BinaryPropertyListDecoder.decode(first)) == first, "not a fixed point: \(label())")
    }

    @Test(arguments: 0..<8)
    func randomValuesEncodeCanonically(seed: Int) throws {
        var random = RandomPropertyListValues(seed: UInt64(seed) &+ 0x5EED_0001)
        for _ in 0..<60 {
            let value = random.value()
            try Self.expectCanonical(value, "\(value)")
        }
    }

    @Test(arguments: [0, 1, 2, 20, 300])
    func snapshotShapedValuesEncodeCanonically(entitlements: Int) throws {
        try Self.expectCanonical(SnapshotShapedValue.make(entitlements: entitlements))
    }

    @Test func sharedAndWideValuesEncodeCanonically() throws {
        let shared = PropertyListValue.array((0..<600).map { .string("s\($0 % 40)") } + (0..<300).map { .integer(Int64($0 % 17)) })
        let wide = PropertyListValue.dictionary(PropertyListDictionary(uniqueKeysWithValues: (0..<70_000).map { ("key\($0)", .boolean($0 % 2 == 0)) }))
        for value in [shared, wide, .array([shared, wide, shared])] {
            try Self.expectCanonical(value)
        }
        // Shared strings and integers are written once: 40 strings, 17 integers, the array.
        let bytes = try BinaryPropertyListEncoder.encode(shared)
        #expect(bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(0) { $0 << 8 | Int($1) } == 58)
    }

    /// Strings are shared exactly when their bytes are equal, however long a prefix they share:
    /// texts differing only in their last byte, or only past their first eight or sixteen bytes,
    /// are each written once, and each repeat refers to its own.
    @Test func sharesOnlyStringsWithEqualBytes() throws {
        let texts = ["abcdefg", "abcdefh", "abcdefghX", "abcdefghY", "abcdefgh12345678", "abcdefgh12345679", "abcdefgh12345678Z", "abcdefgh12345678W"]
        let value = PropertyListValue.array((texts + texts.reversed()).map { .string($0) })
        let bytes = try BinaryPropertyListEncoder.encode(value)
        let objectCount = bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == texts.count + 1)
        #expect(try BinaryPropertyListDecoder.decode(bytes) == value)
    }

    /// `[A, B, A]` with `A` and `B` canonically equivalent but different: `A` is written once and
    /// referenced twice, `B` once (three objects with the array), as CoreFoundation shares them.
    @Test func sharesAStringAfterAnEquivalentButDifferentOne() throws {
        let bytes = try BinaryPropertyListEncoder.encode(.array([.string("é"), .string("e\u{301}"), .string("é")]))
        let objectCount = bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == 3)
        let decoded = try BinaryPropertyListDecoder.decode(bytes)
        #expect(decoded.arrayValue?.compactMap { $0.stringValue?.unicodeScalars.count } == [1, 2, 1])
    }

    /// A two-entitlement snapshot-shaped suite, as bytes written when the layout was last checked
    /// against Foundation's reader.
    @Test func writesTheGoldenBytesOfASnapshotShapedSuite() throws {
        let bytes = try BinaryPropertyListEncoder.encode(.dictionary(["entitlementSnapshot": SnapshotShapedValue.make(entitlements: 2)]))
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.golden)
    }

    static let golden = """
        62706c6973743030d101025f1013656e7469746c656d656e74536e617073686f74d5030405060708202122235c656e74\
        69746c656d656e74735a67656e65726174696f6e5869737375656441745e6e6578745472616e736974696f6e5d736368\
        656d6156657273696f6ed2090a0b1a5f1015656e7469746c656d656e742e666561747572652d305f1015656e7469746c\
        656d656e742e666561747572652d31d70c0d0e0f10111213141516171819566163746976655965787069726573417459\
        6f776e6572736869705a706572696f64547970655970726f6475637449645573746174655977696c6c52656e65770833\
        41c7d784006000005c66616d696c7953686172656455747269616c5f1020636f6d2e6578616d706c652e6170702e6665\
        6174757265302e6d6f6e74686c795a7375627363726962656409d70c0d0e0f101112191b1c1d1e1f133341c7d78b0860\
        000059707572636861736564566e6f726d616c5f1020636f6d2e6578616d706c652e6170702e66656174757265312e6d\
        6f6e74686c795765787069726564120012d6873341c7d784002000003341c7d78b0820000010010008000b0021002c00\
        390044004d005c006a006f0087009f00ae00b500bf00c900d400de00e400ee00ef00f80105010b012e0139013a014901\
        52015c01630186018e0193019c01a500000000000002010000000000000024000000000000000000000000000001a7
        """
}
