import Foundation
import Testing
@testable import PropertyList

/// Our encoder → our decoder, and the exact bytes the encoder chooses.
@Suite struct BinaryPropertyListRoundTripTests {
    static let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)

    static let values: [(String, PropertyListValue)] = [
        ("ascii string", .string("hello")),
        ("unicode string", .string("héllo ✓ 中 😀 👩‍💻 e\u{301} \0")),
        ("15-character string", .string("abcdefghijklmno")),
        ("long string", .string(String(repeating: "x", count: 70_000))),
        ("empty string", .string("")),
        ("zero", .integer(0)),
        ("255", .integer(255)),
        ("256", .integer(256)),
        ("65536", .integer(65_536)),
        ("2^32", .integer(1 << 32)),
        ("negative", .integer(-1)),
        ("int64 max", .integer(.max)),
        ("int64 min", .integer(.min)),
        ("real", .real(3.25)),
        ("negative zero", .real(-0.0)),
        ("infinity", .real(.infinity)),
        ("true", .boolean(true)),
        ("false", .boolean(false)),
        ("date", .date(date)),
        ("date before 2001", .date(Date(timeIntervalSinceReferenceDate: -1e9 - 0.5))),
        ("data", .data([0, 1, 2, 255])),
        ("empty data", .data([])),
        ("large data", .data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })),
        ("empty array", .array([])),
        ("empty dictionary", .dictionary([:])),
        ("wide array", .array((0..<300).map { .integer(Int64($0)) })),
        ("wide dictionary", .dictionary(PropertyListDictionary(uniqueKeysWithValues: (0..<300).map { ("k\($0)", .integer(Int64($0))) }))),
        ("shared strings", .array([.string("same"), .dictionary(["same": .string("same")]), .string("same")])),
        ("equivalent strings stay distinct", .array([.string("é"), .string("e\u{301}")])),
    ]

    @Test(arguments: values.map(\.0))
    func roundTripsEveryKind(name: String) throws {
        let value = try #require(Self.values.first { $0.0 == name }?.1)
        for wrapped in [value, .array([value]), .dictionary(["v": value, "w": .array([value, value])])] {
            let decoded = try BinaryPropertyListDecoder.decode(BinaryPropertyListEncoder.encode(wrapped))
            #expect(decoded == wrapped, "\(name) came back as \(decoded)")
        }
    }

    @Test func keepsTheExactScalarsOfCanonicallyEquivalentStrings() throws {
        let decoded = try BinaryPropertyListDecoder.decode(BinaryPropertyListEncoder.encode(.array([.string("é"), .string("e\u{301}")])))
        let scalars = decoded.arrayValue?.compactMap { $0.stringValue?.unicodeScalars.count }
        #expect(scalars == [1, 2])
    }

    @Test func keepsNegativeZeroAndFloatBits() throws {
        let decoded = try BinaryPropertyListDecoder.decode(BinaryPropertyListEncoder.encode(.real(-0.0)))
        guard case .real(let real) = decoded else { Issue.record("got \(decoded)"); return }
        #expect(real.sign == .minus)
    }

    @Test func roundTripsFiveHundredTwelveLevelsAndRefusesToWriteMore() throws {
        var value = PropertyListValue.integer(1)
        for _ in 0..<512 { value = .array([value]) }
        #expect(try BinaryPropertyListDecoder.decode(BinaryPropertyListEncoder.encode(value)) == value)
        #expect(throws: PropertyListError.self) { try BinaryPropertyListEncoder.encode(.dictionary(["deeper": value])) }
    }

    @Test func refusesToWriteANonFiniteDate() {
        #expect(throws: PropertyListError.self) { try BinaryPropertyListEncoder.encode(.date(Date(timeIntervalSinceReferenceDate: .nan))) }
    }

    /// Canonical output: the same contents built in another insertion order (so another
    /// dictionary iteration order) give the same bytes.
    @Test func writesTheSameBytesForTheSameValue() throws {
        guard case .dictionary(let contents) = SnapshotShapedValue.make(entitlements: 20) else { Issue.record("not a dictionary"); return }
        var reordered: PropertyListDictionary = [:]
        for key in contents.map(\.key).sorted().reversed() { reordered[key] = contents[key] }
        var grown = PropertyListDictionary(minimumCapacity: 4 * contents.count)
        for (key, value) in contents { grown[key] = value }
        let bytes = try BinaryPropertyListEncoder.encode(.dictionary(contents))
        #expect(try BinaryPropertyListEncoder.encode(.dictionary(reordered)) == bytes)
        #expect(try BinaryPropertyListEncoder.encode(.dictionary(grown)) == bytes)
    }

    /// `{"a": 1, "b": "é"}`: header, objects in order (dictionary, sorted keys, values), a
    /// one-byte offset table and the trailer; the values are shared with nothing.
    @Test func writesTheExpectedLayout() throws {
        let bytes = try BinaryPropertyListEncoder.encode(.dictionary(["b": .string("é"), "a": .integer(1)]))
        let expected: [UInt8] = Array("bplist00".utf8) + [
            0xD2, 1, 2, 3, 4,  // object 0 at 8: dictionary of 2, keys 1 2, values 3 4
            0x51, 0x61,  // object 1 at 13: "a"
            0x51, 0x62,  // object 2 at 15: "b"
            0x10, 0x01,  // object 3 at 17: 1 in one byte
            0x61, 0x00, 0xE9,  // object 4 at 19: "é" as one UTF-16BE unit
            8, 13, 15, 17, 19,  // offset table at 22
            0, 0, 0, 0, 0, 0, 1, 1,
            0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 22,
        ]
        #expect(bytes == expected)
    }

    @Test(arguments: [(Int64(0), 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4), (Int64(UInt32.max), 4), (1 << 32, 8), (-1, 8)])
    func writesIntegersInTheFewestBytes(integer: Int64, width: Int) throws {
        let bytes = try BinaryPropertyListEncoder.encode(.integer(integer))
        #expect(bytes[8] == 0x10 | UInt8(width.trailingZeroBitCount))
        #expect(bytes.count == 8 + 1 + width + 1 + 32)
    }

    @Test func decodesSixteenByteIntegersThatFitInInt64() throws {
        for (high, low, expected) in [(UInt64(0), UInt64(5), Int64(5)), (.max, UInt64(bitPattern: -5), -5)] {
            var object: [UInt8] = [0x14]
            for shift in stride(from: 56, through: 0, by: -8) { object.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
            for shift in stride(from: 56, through: 0, by: -8) { object.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
            let bytes = CraftedBinaryPropertyList(objects: [object]).bytes
            #expect(try BinaryPropertyListDecoder.decode(bytes) == .integer(expected))
        }
    }

    @Test func decodesFourByteReals() throws {
        let bytes = CraftedBinaryPropertyList(objects: [[0x22] + bigEndian(UInt64(Float(1.5).bitPattern), width: 4)]).bytes
        #expect(try BinaryPropertyListDecoder.decode(bytes) == .real(1.5))
    }

    /// Offsets and object references read alike at every width a trailer may give them.
    @Test(arguments: 1...8)
    func readsOffsetsAndReferencesOfEveryWidth(referenceSize: Int) throws {
        func ref(_ index: UInt64) -> [UInt8] { bigEndian(index, width: referenceSize) }
        let objects = [[0xD1] + ref(1) + ref(2), [0x51, 0x61], [0xA2] + ref(3) + ref(4), [0x09], [0x11, 0x01, 0x2C]]
        for offsetSize in 1...8 {
            let bytes = CraftedBinaryPropertyList(objects: objects, offsetIntSize: UInt8(offsetSize), objectRefSize: UInt8(referenceSize)).bytes
            #expect(try BinaryPropertyListDecoder.decode(bytes) == .dictionary(["a": .array([.boolean(true), .integer(300)])]), "offsets of \(offsetSize) bytes")
        }
    }

    @Test func theCodecRoutesBinaryInputToTheBinaryDecoder() throws {
        // A duplicate key: Foundation would accept it (last wins); the binary decoder refuses it.
        let bytes = CraftedBinaryPropertyList(objects: [[0xD2, 1, 1, 2, 2], [0x51, 0x61], [0x09]]).bytes
        #expect((try? FoundationPropertyList.decode(bytes)) == .dictionary(["a": .boolean(true)]))
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode(bytes) }
    }
}
