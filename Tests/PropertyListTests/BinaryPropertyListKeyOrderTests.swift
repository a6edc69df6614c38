import PropertyList
import TestSupport
import Testing

/// The walk tells a dictionary's keys apart whatever order a file holds them in: keys in
/// ascending byte order (what writers that sort their keys store) and keys in any other order
/// are accepted exactly when they are distinct, including keys that share long prefixes, are
/// prefixes of one another, or are the same text once in ASCII and once in UTF-16.
@Suite struct BinaryPropertyListKeyOrderTests {
    /// A dictionary of `keys` (each its own string object, `utf16` ones stored in UTF-16), every
    /// value `true`.
    static func dictionary(_ keys: [String], utf16: Set<Int> = []) -> [UInt8] {
        let count = keys.count
        var objects: [[UInt8]] = [[0xDF, 0x10, UInt8(count)] + (1...count).map(UInt8.init) + Array(repeating: UInt8(count + 1), count: count)]
        for (position, key) in keys.enumerated() {
            let units: [UInt8] = utf16.contains(position) ? key.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } : Array(key.utf8)
            let length = utf16.contains(position) ? key.utf16.count : units.count
            let marker: UInt8 = utf16.contains(position) ? 0x60 : 0x50
            objects.append((length < 15 ? [marker | UInt8(length)] : [marker | 0x0F, 0x10, UInt8(length)]) + units)
        }
        objects.append([0x09])
        var file = CraftedBinaryPropertyList(objects: objects)
        file.offsetIntSize = 2  // files of more than 255 bytes
        return file.bytes
    }

    @Test func keysInAnyOrderAreAcceptedExactlyWhenDistinct() throws {
        var random = SplitMix(seed: 14)
        let alphabet = Array("ab.1")
        for round in 0..<400 {
            let count = 1 + random.next(in: 0...40)
            var keys: [String] = []
            for _ in 0..<count {
                // Short texts over a small alphabet: shared prefixes, prefixes of each other, repeats.
                let length = random.next(in: 0...18)
                keys.append(String((0..<length).map { _ in alphabet[random.next(in: 0...(alphabet.count - 1))] }))
            }
            switch random.next(in: 0...2) {
            case 0: keys.sort()
            case 1: keys = Array(Set(keys)).sorted()  // ascending and distinct, as a writer stores them
            default: break
            }
            let utf16: Set<Int> = random.next(in: 0...3) == 0 ? [random.next(in: 0...(keys.count - 1))] : []
            let distinct = Set(keys).count == keys.count
            let bytes = Self.dictionary(keys, utf16: utf16)
            do {
                let value = try PropertyListCodec.decode(bytes)
                #expect(distinct, "round \(round): \(keys) accepted")
                #expect(value.dictionaryValue?.map(\.key).sorted() == keys.sorted(), "round \(round)")
            } catch {
                #expect(!distinct, "round \(round): \(keys) refused: \(error)")
                if case .malformed(let reason) = error { #expect(reason.contains("twice"), "round \(round): \(reason)") }
            }
        }
    }

    /// A dictionary of 1,000 members (two-byte references, as a snapshot of 1,000 entitlements
    /// has) with one key there twice is refused, its keys sorted or not; without the repeat it is read.
    @Test(arguments: [false, true])
    func aRepeatedKeyAmongAThousandIsRefused(sorted: Bool) throws {
        var keys = (0..<1000).map { "entitlement.\($0)" }
        if sorted { keys.sort() }
        func file(_ keys: [String]) -> [UInt8] {
            let count = keys.count, value = UInt64(count + 1)
            let references = (1...count).flatMap { bigEndian(UInt64($0), width: 2) } + (0..<count).flatMap { _ in bigEndian(value, width: 2) }
            var objects = [[0xDF, 0x11] + bigEndian(UInt64(count), width: 2) + references]
            objects += keys.map { [0x50 | 0x0F, 0x10, UInt8($0.utf8.count)] + Array($0.utf8) }
            objects.append([0x09])
            var crafted = CraftedBinaryPropertyList(objects: objects)
            (crafted.offsetIntSize, crafted.objectRefSize) = (4, 2)
            return crafted.bytes
        }
        #expect(try PropertyListCodec.decode(file(keys)).dictionaryValue?.count == 1000)
        var repeated = keys
        repeated[sorted ? 700 : 999] = repeated[sorted ? 699 : 3]
        #expect(throws: PropertyListError.malformed(reason: "dictionary (object 0) has the key \"\(repeated[sorted ? 700 : 999])\" twice")) {
            try PropertyListCodec.decode(file(repeated))
        }
    }
}
