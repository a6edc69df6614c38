import Testing
@testable import PropertyList

/// Hand-crafted hostile files, truncations and corruptions: each is refused with a one-line
/// error, none crashes or hangs.
@Suite struct BinaryPropertyListMalformedTests {
    enum Expected: Sendable {
        /// ``PropertyListError/malformed(reason:)`` whose reason contains the text.
        case malformed(String)
        case unsupported(path: String, type: String)
    }

    /// `count` arrays, each holding the next, around `true`; two-byte offsets and references.
    static func nestedArrays(_ count: Int) -> [UInt8] {
        var objects = (0..<count).map { [0xA1] + bigEndian(UInt64($0 + 1), width: 2) }
        objects.append([0x09])
        return CraftedBinaryPropertyList(objects: objects, offsetIntSize: 2, objectRefSize: 2).bytes
    }

    static let zeros = [UInt8](repeating: 0, count: 8)

    /// An array of two one-entry dictionaries with the same key object: `{a: true}` and
    /// `{a: <object secondValue>}`, where object 5 is a null; references of `referenceSize` bytes.
    static func repeatedKeys(secondValue: UInt64, referenceSize: Int) -> [UInt8] {
        func ref(_ index: UInt64) -> [UInt8] { bigEndian(index, width: referenceSize) }
        let objects: [[UInt8]] = [
            [0xA2] + ref(1) + ref(2), [0xD1] + ref(3) + ref(4), [0xD1] + ref(3) + ref(secondValue), [0x51, 0x61], [0x09], [0x00],
        ]
        return CraftedBinaryPropertyList(objects: objects, objectRefSize: UInt8(referenceSize)).bytes
    }

    static let cases: [(String, [UInt8], Expected)] = [
        ("bad magic", CraftedBinaryPropertyList(magic: Array("xplist00".utf8), objects: [[0x09]]).bytes, .malformed("bplist00 magic")),
        ("unsupported version", CraftedBinaryPropertyList(magic: Array("bplist01".utf8), objects: [[0x09]]).bytes, .malformed("version")),
        ("magic only", Array("bplist00".utf8), .malformed("too short")),
        ("too short for a trailer", Array("bplist00".utf8) + [0x09] + [UInt8](repeating: 0, count: 31), .malformed("too short")),
        ("offset size 0", CraftedBinaryPropertyList(objects: [[0x09]], offsetIntSize: 0).bytes, .malformed("offset size 0")),
        ("offset size 9", CraftedBinaryPropertyList(objects: [[0x09]], offsetIntSize: 9, offsets: []).bytes, .malformed("offset size 9")),
        ("reference size 0", CraftedBinaryPropertyList(objects: [[0x09]], objectRefSize: 0).bytes, .malformed("reference size 0")),
        ("reference size 9", CraftedBinaryPropertyList(objects: [[0x09]], objectRefSize: 9).bytes, .malformed("reference size 9")),
        ("no objects", CraftedBinaryPropertyList(objects: [[0x09]], objectCount: 0).bytes, .malformed("object count 0")),
        ("object count above the limit", CraftedBinaryPropertyList(objects: [[0x09]], objectCount: 1 << 40).bytes, .malformed("object count")),
        ("object count overflowing the table size", CraftedBinaryPropertyList(objects: [[0x09]], offsetIntSize: 8, objectCount: .max / 4).bytes, .malformed("object count")),
        ("top object out of range", CraftedBinaryPropertyList(objects: [[0x09]], topObject: 1).bytes, .malformed("top object 1")),
        ("offset table past the end", CraftedBinaryPropertyList(objects: [[0x09]], offsetTableOffset: 1000).bytes, .malformed("outside the file")),
        ("offset table offset overflowing", CraftedBinaryPropertyList(objects: [[0x09]], offsetTableOffset: .max - 1).bytes, .malformed("outside the file")),
        ("offset table in the header", CraftedBinaryPropertyList(objects: [[0x09]], offsetTableOffset: 4).bytes, .malformed("outside the file")),
        ("offset table running into the trailer", CraftedBinaryPropertyList(objects: [[0x09]], objectCount: 5).bytes, .malformed("outside the file")),
        ("references too narrow for the object count",
         CraftedBinaryPropertyList(objects: Array(repeating: [0x09], count: 300), offsetIntSize: 2).bytes, .malformed("cannot address")),
        ("object offset in the header", CraftedBinaryPropertyList(objects: [[0x09]], offsets: [3]).bytes, .malformed("outside the object table")),
        ("object offset in the offset table", CraftedBinaryPropertyList(objects: [[0x09]], offsets: [9]).bytes, .malformed("outside the object table")),
        ("reference out of range", CraftedBinaryPropertyList(objects: [[0xA1, 0x05]]).bytes, .malformed("references object 5")),
        ("array containing itself", CraftedBinaryPropertyList(objects: [[0xA1, 0x00]]).bytes, .malformed("cycle")),
        ("cycle through a dictionary", CraftedBinaryPropertyList(objects: [[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]]).bytes, .malformed("cycle")),
        ("nesting deeper than 512", nestedArrays(513), .malformed("deeper than 512")),
        ("exponential sharing", CraftedBinaryPropertyList(objects: (0..<30).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x09]]).bytes,
         .malformed("more than 1048576 values")),
        ("integer key", CraftedBinaryPropertyList(objects: [[0xD1, 1, 2], [0x10, 5], [0x09]]).bytes, .unsupported(path: "", type: "dictionary key integer")),
        ("nested boolean key", CraftedBinaryPropertyList(objects: [[0xD1, 1, 2], [0x51, 0x61], [0xA1, 3], [0xD1, 4, 4], [0x08]]).bytes,
         .unsupported(path: "a[0]", type: "dictionary key boolean")),
        ("unpaired high surrogate at the end", CraftedBinaryPropertyList(objects: [[0x61, 0xD8, 0x3D]]).bytes, .malformed("unpaired surrogate")),
        ("unpaired low surrogate", CraftedBinaryPropertyList(objects: [[0x62, 0x00, 0x41, 0xDC, 0x00]]).bytes, .malformed("unpaired surrogate")),
        ("high surrogate before a letter", CraftedBinaryPropertyList(objects: [[0x62, 0xD8, 0x3D, 0x00, 0x41]]).bytes, .malformed("unpaired surrogate")),
        ("non-ASCII byte in an ASCII string", CraftedBinaryPropertyList(objects: [[0x52, 0x61, 0xC3]]).bytes, .malformed("above 0x7F")),
        ("ASCII string past the end", CraftedBinaryPropertyList(objects: [[0x55, 0x61, 0x62]]).bytes, .malformed("runs past the end")),
        ("UTF-16 string past the end", CraftedBinaryPropertyList(objects: [[0x62, 0x00, 0x61]]).bytes, .malformed("runs past the end")),
        ("data length past the end", CraftedBinaryPropertyList(objects: [[0x4F, 0x11, 0x01, 0x00, 0x00]]).bytes, .malformed("runs past the end")),
        ("data length of 2^64 - 1", CraftedBinaryPropertyList(objects: [[0x4F, 0x13] + [UInt8](repeating: 0xFF, count: 8)]).bytes, .malformed("runs past the end")),
        ("length that is a real", CraftedBinaryPropertyList(objects: [[0x4F, 0x23] + zeros]).bytes, .malformed("not an integer")),
        ("length that is a 16-byte integer", CraftedBinaryPropertyList(objects: [[0x4F, 0x14] + zeros + zeros]).bytes, .malformed("not an integer")),
        ("length marker at the end of the objects", CraftedBinaryPropertyList(objects: [[0x4F]]).bytes, .malformed("not an integer")),
        ("length integer cut short", CraftedBinaryPropertyList(objects: [[0x4F, 0x12, 0x00]]).bytes, .malformed("runs past the end")),
        ("array past the end", CraftedBinaryPropertyList(objects: [[0xAE, 0]]).bytes, .malformed("runs past the end")),
        ("dictionary past the end", CraftedBinaryPropertyList(objects: [[0xD3, 0, 0, 0]]).bytes, .malformed("runs past the end")),
        ("integer cut short", CraftedBinaryPropertyList(objects: [[0x13, 0, 0]]).bytes, .malformed("runs past the end")),
        ("integer size code 5", CraftedBinaryPropertyList(objects: [[0x15, 0]]).bytes, .malformed("invalid size code 5")),
        ("16-byte integer beyond Int64", CraftedBinaryPropertyList(objects: [[0x14, 0, 0, 0, 0, 0, 0, 0, 1] + zeros]).bytes,
         .unsupported(path: "", type: "integer outside the 64-bit range")),
        ("16-byte integer above Int64.max", CraftedBinaryPropertyList(objects: [[0x14] + zeros + [0x80, 0, 0, 0, 0, 0, 0, 0]]).bytes,
         .unsupported(path: "", type: "integer outside the 64-bit range")),
        ("real size code 1", CraftedBinaryPropertyList(objects: [[0x21, 0, 0]]).bytes, .malformed("invalid size code 1")),
        ("real cut short", CraftedBinaryPropertyList(objects: [[0x23, 0, 0]]).bytes, .malformed("runs past the end")),
        ("date with marker 0x32", CraftedBinaryPropertyList(objects: [[0x32, 0, 0, 0, 0]]).bytes, .malformed("unknown marker 0x32")),
        ("date cut short", CraftedBinaryPropertyList(objects: [[0x33, 0, 0]]).bytes, .malformed("runs past the end")),
        ("marker 0x70", CraftedBinaryPropertyList(objects: [[0x70]]).bytes, .malformed("unknown marker 0x70")),
        ("fill byte", CraftedBinaryPropertyList(objects: [[0x0F]]).bytes, .malformed("unknown marker 0xF")),
        ("null", CraftedBinaryPropertyList(objects: [[0x00]]).bytes, .unsupported(path: "", type: "null")),
        ("UID", CraftedBinaryPropertyList(objects: [[0x80, 1]]).bytes, .unsupported(path: "", type: "UID")),
        ("set inside an array", CraftedBinaryPropertyList(objects: [[0xA2, 1, 2], [0x09], [0xC0]]).bytes, .unsupported(path: "[1]", type: "set")),
        ("the same key object twice", CraftedBinaryPropertyList(objects: [[0xD2, 1, 1, 2, 2], [0x51, 0x61], [0x09]]).bytes, .malformed("key \"a\" twice")),
        ("the same key in two encodings", CraftedBinaryPropertyList(objects: [[0xD2, 1, 2, 3, 3], [0x51, 0x61], [0x61, 0, 0x61], [0x09]]).bytes,
         .malformed("twice")),
        // The second dictionary has the very key references of the first: the same errors,
        // with the same paths, as for any other dictionary.
        ("value out of range under known keys", repeatedKeys(secondValue: 9, referenceSize: 1), .malformed("references object 9")),
        ("value out of range under known two-byte keys", repeatedKeys(secondValue: 9, referenceSize: 2), .malformed("references object 9")),
        ("value out of range under known three-byte keys", repeatedKeys(secondValue: 9, referenceSize: 3), .malformed("references object 9")),
        ("null under known keys", repeatedKeys(secondValue: 5, referenceSize: 1), .unsupported(path: "[1].a", type: "null")),
        ("null under known two-byte keys", repeatedKeys(secondValue: 5, referenceSize: 2), .unsupported(path: "[1].a", type: "null")),
        ("null under known three-byte keys", repeatedKeys(secondValue: 5, referenceSize: 3), .unsupported(path: "[1].a", type: "null")),
        ("cycle under known keys", repeatedKeys(secondValue: 0, referenceSize: 1), .malformed("cycle")),
        // A dictionary under a value between the two uses the same key string: the repeat is
        // still the outer dictionary's (it was accepted, "last wins", before).
        ("a key again after a nested dictionary used it",
         CraftedBinaryPropertyList(objects: [[0xD3, 1, 2, 1, 3, 4, 5], [0x51, 0x4B], [0x51, 0x4A], [0x10, 1], [0xD1, 1, 3], [0x10, 2]]).bytes,
         .malformed("key \"K\" twice")),
        ("a key again, out of order, after a nested dictionary used it",
         CraftedBinaryPropertyList(objects: [[0xD3, 2, 1, 2, 3, 4, 5], [0x51, 0x4B], [0x51, 0x4C], [0x10, 1], [0xD1, 2, 3], [0x10, 2]]).bytes,
         .malformed("key \"L\" twice")),
        ("keys out of order, one twice", CraftedBinaryPropertyList(objects: [[0xD3, 1, 2, 3, 4, 4, 4], [0x51, 0x62], [0x51, 0x61], [0x51, 0x62], [0x09]]).bytes,
         .malformed("key \"b\" twice")),
        ("ascending keys, then an ASCII key again in UTF-16",
         CraftedBinaryPropertyList(objects: [[0xD3, 1, 2, 3, 4, 4, 4], [0x51, 0x61], [0x51, 0x62], [0x61, 0, 0x61], [0x09]]).bytes, .malformed("twice")),
        ("canonically equivalent keys", CraftedBinaryPropertyList(objects: [[0xD2, 1, 2, 3, 3], [0x61, 0, 0xE9], [0x62, 0, 0x65, 0x03, 0x01], [0x09]]).bytes,
         .malformed("twice")),
    ]

    @Test(arguments: cases.map(\.0))
    func refusesWithTheExpectedError(name: String) throws {
        let (_, bytes, expected) = try #require(Self.cases.first { $0.0 == name })
        do {
            let value = try BinaryPropertyListDecoder.decode(bytes)
            Issue.record("\(name) decoded as \(value)")
        } catch {
            #expect(!error.description.contains("\n"), "\(error.description)")
            switch (expected, error) {
            case (.malformed(let text), .malformed(let reason)):
                #expect(reason.contains(text), "\(name): \(reason)")
            case (.unsupported(let path, let type), .unsupportedValue(let actualPath, let actualType)):
                #expect(actualPath == path && actualType == type, "\(name): \(error)")
            default:
                Issue.record("\(name): expected \(expected), got \(error)")
            }
        }
    }

    @Test func theCodecRefusesThemToo() {
        for (name, bytes, _) in Self.cases {
            #expect(throws: PropertyListError.self, "\(name)") { try PropertyListCodec.decode(bytes) }
        }
    }

    @Test func fiveHundredTwelveNestedArraysAreAccepted() throws {
        var expected = PropertyListValue.boolean(true)
        for _ in 0..<512 { expected = .array([expected]) }
        #expect(try BinaryPropertyListDecoder.decode(Self.nestedArrays(512)) == expected)
    }

    @Test func deepNestingIsRefusedOnASmallStack() async throws {
        // Swift concurrency's threads have smaller stacks than the main thread.
        let outcome = await Task.detached { () -> String in
            do { _ = try BinaryPropertyListDecoder.decode(Self.nestedArrays(5000)) } catch { return "\(error)" }
            return "accepted"
        }.value
        #expect(outcome.contains("deeper than 512"), "\(outcome)")
        let accepted = await Task.detached { (try? BinaryPropertyListDecoder.decode(Self.nestedArrays(512))) != nil }.value
        #expect(accepted)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyTruncationIsRefused(seed: UInt64) throws {
        var random = RandomPropertyListValues(seed: seed)
        let values = [SnapshotShapedValue.make(entitlements: 5), random.value(), .array([random.value(), random.value()])]
        for value in values {
            let bytes = try PropertyListCodec.encode(value)
            var accepted: [Int] = []
            for length in 0..<bytes.count where (try? PropertyListCodec.decode(Array(bytes[..<length]))) != nil {
                accepted.append(length)
            }
            #expect(accepted.isEmpty, "truncations of \(bytes.count) bytes accepted at lengths \(accepted)")
        }
    }

    /// Every byte replaced by a few hostile values: each decode ends with a value or an error
    /// (a trap in a debug build would kill the test run), and many are refused.
    @Test func singleByteCorruptionsNeverCrash() throws {
        let bytes = try PropertyListCodec.encode(SnapshotShapedValue.make(entitlements: 3))
        var refused = 0
        var total = 0
        for position in bytes.indices {
            for replacement in [0x00, 0xFF, 0x0F, 0xAF, 0xDF, 0x6F, bytes[position] ^ 0x01, bytes[position] ^ 0x80] where replacement != bytes[position] {
                var corrupted = bytes
                corrupted[position] = replacement
                total += 1
                do { _ = try BinaryPropertyListDecoder.decode(corrupted) } catch { refused += 1 }
            }
        }
        #expect(refused > total / 4, "only \(refused) of \(total) corruptions refused")
    }
}
