import Glibc
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif
#endif

/// Walks a binary property list (`bplist00`) in place, object by object, without building
/// ``PropertyListValue`` containers: for a caller that knows the shape it expects (the
/// entitlement snapshot) and wants typed fields, not dictionaries of enums.
///
/// Every accessor answers `nil` for anything it does not read with certainty (malformed, out of
/// range, or unusual such as a UTF-16 dictionary key); the caller then falls back to
/// ``PropertyListCodec/decode(_:)``, which explains the problem. ``acceptsWholeFile()`` says
/// whether ``PropertyListCodec/decode(_:)`` is certain to accept the file, so that a caller
/// reading one part of it refuses exactly what the full decoder refuses.
///
/// A reader is valid only inside the closure of ``withReader(_:_:)``; it reads the caller's bytes.
public struct BinaryPropertyListReader {
    private typealias Format = BinaryPropertyListFormat

    /// One object of the file (an index into its offset table).
    public struct Object: Sendable, Hashable {
        public let index: Int
    }

    /// A dictionary object: `count` keys and values, read by position.
    public struct DictionaryObject {
        public let count: Int
        let keysStart: Int
        let valuesStart: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let trailer: BinaryPropertyListTrailer
    private let objectTableEnd: Int

    /// The root object.
    public var top: Object { Object(index: trailer.topObject) }

    /// Runs `body` with a reader over `bytes`.
    ///
    /// - Returns: `body`'s answer, or `nil` when `bytes` is not a `bplist00` file with a valid
    ///   trailer (or `body` answers `nil`).
    public static func withReader<Result>(_ bytes: [UInt8], _ body: (BinaryPropertyListReader) -> Result?) -> Result? {
        bytes.withUnsafeBufferPointer { buffer in
            guard buffer.count >= Format.magic.count, buffer.count <= Format.maximumInputSize,
                buffer.prefix(8).elementsEqual(Format.magic),
                let trailer = try? BinaryPropertyListTrailer(buffer)
            else { return nil }
            return body(BinaryPropertyListReader(bytes: buffer, trailer: trailer, objectTableEnd: trailer.offsetTableOffset))
        }
    }

    // MARK: Typed access

    /// The dictionary `object`, or `nil` if it is not one.
    public func dictionary(_ object: Object) -> DictionaryObject? {
        guard let offset = offset(of: object), bytes[offset] >> 4 == Format.dictionaryKind,
            let (count, start) = length(at: offset, unitSize: 2 * trailer.objectRefSize)
        else { return nil }
        return DictionaryObject(count: count, keysStart: start, valuesStart: start + count * trailer.objectRefSize)
    }

    /// The key at `position` (below `dictionary.count`).
    public func key(_ position: Int, of dictionary: DictionaryObject) -> Object? {
        reference(at: dictionary.keysStart + position * trailer.objectRefSize)
    }

    /// The value at `position` (below `dictionary.count`).
    public func value(_ position: Int, of dictionary: DictionaryObject) -> Object? {
        reference(at: dictionary.valuesStart + position * trailer.objectRefSize)
    }

    /// The bytes of the ASCII string `object`, or `nil` if it is not an ASCII string (a UTF-16
    /// string included) or holds a byte above 0x7F. Valid inside ``withReader(_:_:)`` only.
    public func asciiBytes(_ object: Object) -> UnsafeBufferPointer<UInt8>? {
        guard let offset = offset(of: object), bytes[offset] >> 4 == Format.asciiStringKind,
            let (count, start) = length(at: offset, unitSize: 1)
        else { return nil }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
        var combined: UInt8 = 0
        for byte in slice { combined |= byte }
        return combined < 0x80 ? slice : nil
    }

    /// Whether `object` is the ASCII string `text` (compared byte for byte, nothing allocated).
    public func isASCIIString(_ object: Object, equalTo text: String) -> Bool {
        guard let slice = asciiBytes(object) else { return false }
        return slice.elementsEqual(text.utf8)
    }

    /// The ASCII string `object` as a `String`, or `nil` if it is not an ASCII string.
    public func asciiString(_ object: Object) -> String? {
        asciiBytes(object).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A scalar as ``PropertyListCodec/decode(_:)`` would produce it: `.boolean`, `.integer`
    /// (1, 2, 4 or 8 bytes), `.real` or `.date`; `nil` for anything else.
    public func scalar(_ object: Object) -> PropertyListValue? {
        guard let offset = offset(of: object) else { return nil }
        let marker = bytes[offset], info = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case Format.falseMarker: return .boolean(false)
            case Format.trueMarker: return .boolean(true)
            default: return nil
            }
        case Format.integerKind:
            guard info <= 3, let raw = unsigned(at: offset + 1, width: 1 << Int(info)) else { return nil }
            return .integer(info == 3 ? Int64(bitPattern: raw) : Int64(raw))
        case Format.realKind:
            switch info {
            case 2: return unsigned(at: offset + 1, width: 4).map { .real(Double(Float(bitPattern: UInt32($0)))) }
            case 3: return unsigned(at: offset + 1, width: 8).map { .real(Double(bitPattern: $0)) }
            default: return nil
            }
        case Format.dateMarker >> 4:
            guard marker == Format.dateMarker, let raw = unsigned(at: offset + 1, width: 8) else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw)))
        default:
            return nil
        }
    }

    // MARK: Whole-file check

    /// Whether ``PropertyListCodec/decode(_:)`` is certain to accept the file: every object
    /// reachable from the root is well formed and supported, no container contains itself or
    /// nests deeper than 64 levels (the decoder allows 512), the value count stays within the
    /// decoder's limit, every dictionary key is an ASCII string and no dictionary has the same
    /// key twice. `false` when the decoder would refuse the file and also when this check is not
    /// sure (16-byte integers, UTF-16 keys, deeper nesting): the caller then asks the decoder.
    ///
    /// The walk visits objects in the decoder's order and remembers each, as the decoder does,
    /// so shared objects are checked once and counted per use.
    public func acceptsWholeFile() -> Bool {
        var walk = Walk(objectCount: trailer.objectCount)
        return expandedCount(of: top, depth: 0, walk: &walk) != nil
    }

    /// What the whole-file walk remembers.
    private struct Walk {
        /// Per object: 0 unvisited, -1 in progress, else how many values it expands to.
        var counts: [Int]
        /// Per object: whether it was checked to be an ASCII string (usable as a key).
        var isASCIIKey: [Bool]
        /// Key-reference regions (start, byte length) of dictionaries whose keys were found
        /// distinct: a dictionary with byte-identical key references has the same keys.
        var distinctKeyRegions: [(start: Int, length: Int)] = []

        init(objectCount: Int) {
            counts = [Int](repeating: 0, count: objectCount)
            isASCIIKey = [Bool](repeating: false, count: objectCount)
        }
    }

    /// How many values `object` expands to (as the decoder counts them), or `nil` when the
    /// decoder might refuse it.
    private func expandedCount(of object: Object, depth: Int, walk: inout Walk) -> Int? {
        let known = walk.counts[object.index]
        if known > 0 { return known }
        if known < 0 { return nil }  // a cycle
        guard let offset = offset(of: object) else { return nil }
        let marker = bytes[offset]
        var total = 1
        switch marker >> 4 {
        case 0x0, Format.integerKind, Format.realKind, Format.dateMarker >> 4:
            guard scalar(object) != nil else { return nil }
        case Format.dataKind:
            guard length(at: offset, unitSize: 1) != nil else { return nil }
        case Format.asciiStringKind:
            guard asciiBytes(object) != nil else { return nil }
            walk.isASCIIKey[object.index] = true
        case Format.utf16StringKind:
            guard let (count, start) = length(at: offset, unitSize: 2), isValidUTF16(from: start, count: count) else { return nil }
        case Format.arrayKind:
            guard depth < 64, let (count, start) = length(at: offset, unitSize: trailer.objectRefSize) else { return nil }
            walk.counts[object.index] = -1
            for position in 0..<count {
                guard let child = reference(at: start + position * trailer.objectRefSize),
                    let childCount = expandedCount(of: child, depth: depth + 1, walk: &walk)
                else { return nil }
                total += childCount
                guard total <= Format.maximumValueCount else { return nil }
            }
        case Format.dictionaryKind:
            guard depth < 64, let dictionary = dictionary(object) else { return nil }
            walk.counts[object.index] = -1
            for position in 0..<dictionary.count {
                guard let keyObject = key(position, of: dictionary), let valueObject = value(position, of: dictionary),
                    let keyCount = expandedCount(of: keyObject, depth: depth + 1, walk: &walk), walk.isASCIIKey[keyObject.index],
                    let valueCount = expandedCount(of: valueObject, depth: depth + 1, walk: &walk)
                else { return nil }
                total += keyCount + valueCount
                guard total <= Format.maximumValueCount else { return nil }
            }
            guard hasDistinctKeys(dictionary, walk: &walk) else { return nil }
        default:
            return nil  // null, UID, set, unknown markers
        }
        walk.counts[object.index] = total
        return total
    }

    /// Whether the (ASCII, checked) keys of `dictionary` are distinct: distinct ASCII byte
    /// strings are distinct Swift strings. Pairwise for small dictionaries (nothing allocated);
    /// by 64-bit fingerprint for large ones, where two equal fingerprints count as "not sure".
    private func hasDistinctKeys(_ dictionary: DictionaryObject, walk: inout Walk) -> Bool {
        let region = (start: dictionary.keysStart, length: dictionary.count * trailer.objectRefSize)
        for index in walk.distinctKeyRegions.indices where walk.distinctKeyRegions[index].length == region.length {
            let start = walk.distinctKeyRegions[index].start
            if let base = bytes.baseAddress, memcmp(base + start, base + region.start, region.length) == 0 { return true }
        }
        func keyBytes(_ position: Int) -> UnsafeBufferPointer<UInt8>? { key(position, of: dictionary).flatMap(asciiBytes) }
        if dictionary.count <= 16 {
            for later in 0..<dictionary.count {
                guard let laterKey = keyBytes(later) else { return false }
                for earlier in 0..<later {
                    guard let earlierKey = keyBytes(earlier) else { return false }
                    if laterKey.count == earlierKey.count && laterKey.elementsEqual(earlierKey) { return false }
                }
            }
            if walk.distinctKeyRegions.count < 8 { walk.distinctKeyRegions.append(region) }
            return true
        }
        var fingerprints = Set<UInt64>(minimumCapacity: dictionary.count)
        for position in 0..<dictionary.count {
            guard let keyBytes = keyBytes(position) else { return false }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for byte in keyBytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            guard fingerprints.insert(hash).inserted else { return false }
        }
        return true
    }

    /// No unpaired surrogate in `count` big-endian UTF-16 units from `start` (the decoder refuses them).
    private func isValidUTF16(from start: Int, count: Int) -> Bool {
        var position = start
        let end = start + 2 * count
        while position < end {
            let unit = UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
            position += 2
            guard unit & 0xF800 == 0xD800 else { continue }
            guard unit < 0xDC00, position < end else { return false }
            let low = UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
            guard low & 0xFC00 == 0xDC00 else { return false }
            position += 2
        }
        return true
    }

    // MARK: Layout (the decoder's checks, answering nil instead of throwing)

    private func offset(of object: Object) -> Int? {
        guard object.index >= 0, object.index < trailer.objectCount else { return nil }
        let entry = trailer.offsetTableOffset + object.index * trailer.offsetIntSize
        let offset = BinaryPropertyListTrailer.unsigned(bytes, at: entry, width: trailer.offsetIntSize)
        guard offset >= UInt64(Format.headerSize), offset < UInt64(objectTableEnd) else { return nil }
        return Int(offset)
    }

    private func reference(at position: Int) -> Object? {
        let reference: UInt64
        switch trailer.objectRefSize {
        case 1: reference = UInt64(bytes[position])
        case 2: reference = UInt64(bytes[position]) << 8 | UInt64(bytes[position + 1])
        default: reference = BinaryPropertyListTrailer.unsigned(bytes, at: position, width: trailer.objectRefSize)
        }
        guard reference < UInt64(trailer.objectCount) else { return nil }
        return Object(index: Int(reference))
    }

    private func length(at offset: Int, unitSize: Int) -> (count: Int, start: Int)? {
        let info = bytes[offset] & 0x0F
        var count = Int(info)
        var start = offset + 1
        if info == Format.lengthFollows {
            guard start < objectTableEnd, bytes[start] >> 4 == Format.integerKind, bytes[start] & 0x0F <= 3 else { return nil }
            let width = 1 << Int(bytes[start] & 0x0F)
            guard let value = unsigned(at: start + 1, width: width) else { return nil }
            start += 1 + width
            guard value <= UInt64(objectTableEnd) else { return nil }
            count = Int(value)
        }
        guard count <= (objectTableEnd - start) / unitSize else { return nil }
        return (count, start)
    }

    private func unsigned(at position: Int, width: Int) -> UInt64? {
        guard width <= objectTableEnd - position else { return nil }
        return BinaryPropertyListTrailer.unsigned(bytes, at: position, width: width)
    }
}
