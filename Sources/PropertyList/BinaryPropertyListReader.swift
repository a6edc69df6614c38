import Glibc
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
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
/// The accessors are `@inlinable`: a caller in another module reads a field in a few
/// instructions instead of a call per byte range. A reader is valid only inside the closure of
/// ``withReader(_:_:)``; it reads the caller's bytes.
package struct BinaryPropertyListReader {
    /// One object of the file (an index into its offset table).
    package struct Object: Sendable, Hashable {
        package let index: Int

        @inlinable init(index: Int) { self.index = index }
    }

    /// A dictionary object: `count` keys and values, read by position.
    package struct DictionaryObject {
        package let count: Int
        @usableFromInline let keysStart: Int
        @usableFromInline let valuesStart: Int

        @inlinable init(count: Int, keysStart: Int, valuesStart: Int) {
            self.count = count
            self.keysStart = keysStart
            self.valuesStart = valuesStart
        }
    }

    /// The marker bytes and kinds the inlinable accessors need (``BinaryPropertyListFormat`` is internal).
    @usableFromInline enum Marker {
        @usableFromInline static let falseMarker: UInt8 = 0x08
        @usableFromInline static let trueMarker: UInt8 = 0x09
        @usableFromInline static let integerKind: UInt8 = 0x1
        @usableFromInline static let realKind: UInt8 = 0x2
        @usableFromInline static let dateMarker: UInt8 = 0x33
        @usableFromInline static let dataKind: UInt8 = 0x4
        @usableFromInline static let asciiStringKind: UInt8 = 0x5
        @usableFromInline static let utf16StringKind: UInt8 = 0x6
        @usableFromInline static let arrayKind: UInt8 = 0xA
        @usableFromInline static let dictionaryKind: UInt8 = 0xD
        @usableFromInline static let lengthFollows: UInt8 = 0xF
        /// Objects start after the 8-byte magic.
        @usableFromInline static let headerSize = 8
    }

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline let offsetIntSize: Int
    @usableFromInline let objectRefSize: Int
    /// Number of objects (entries in the offset table).
    package let objectCount: Int
    @usableFromInline let topObject: Int
    /// Where the offset table starts, which is also where the object table ends.
    @usableFromInline let objectTableEnd: Int

    /// The root object.
    @inlinable package var top: Object { Object(index: topObject) }

    /// Runs `body` with a reader over `bytes`.
    ///
    /// - Returns: `body`'s answer, or `nil` when `bytes` is not a `bplist00` file with a valid
    ///   trailer (or `body` answers `nil`).
    package static func withReader<Result>(_ bytes: [UInt8], _ body: (BinaryPropertyListReader) -> Result?) -> Result? {
        bytes.withUnsafeBufferPointer { buffer in
            typealias Format = BinaryPropertyListFormat
            guard buffer.count >= Format.magic.count, buffer.count <= Format.maximumInputSize,
                buffer.prefix(8).elementsEqual(Format.magic),
                let trailer = try? BinaryPropertyListTrailer(buffer)
            else { return nil }
            return body(BinaryPropertyListReader(bytes: buffer, trailer: trailer))
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, trailer: BinaryPropertyListTrailer) {
        self.bytes = bytes
        offsetIntSize = trailer.offsetIntSize
        objectRefSize = trailer.objectRefSize
        objectCount = trailer.objectCount
        topObject = trailer.topObject
        objectTableEnd = trailer.offsetTableOffset
    }

    // MARK: Typed access

    /// The dictionary `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func dictionary(_ object: Object) -> DictionaryObject? {
        guard let offset = offset(of: object), bytes[offset] >> 4 == Marker.dictionaryKind,
            let (count, start) = length(at: offset, unitSize: 2 * objectRefSize)
        else { return nil }
        return DictionaryObject(count: count, keysStart: start, valuesStart: start + count * objectRefSize)
    }

    /// The key at `position` (below `dictionary.count`).
    @inlinable @inline(__always) package func key(_ position: Int, of dictionary: DictionaryObject) -> Object? {
        reference(at: dictionary.keysStart + position * objectRefSize)
    }

    /// The value at `position` (below `dictionary.count`).
    @inlinable @inline(__always) package func value(_ position: Int, of dictionary: DictionaryObject) -> Object? {
        reference(at: dictionary.valuesStart + position * objectRefSize)
    }

    /// The bytes of the ASCII string `object`, or `nil` if it is not an ASCII string (a UTF-16
    /// string included) or holds a byte above 0x7F. Valid inside ``withReader(_:_:)`` only.
    @inlinable @inline(__always) package func asciiBytes(_ object: Object) -> UnsafeBufferPointer<UInt8>? {
        guard let offset = offset(of: object), bytes[offset] >> 4 == Marker.asciiStringKind,
            let (count, start) = length(at: offset, unitSize: 1)
        else { return nil }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
        return Self.isASCII(slice) ? slice : nil
    }

    /// Whether every byte of `slice` is below 0x80, eight at a time.
    @inlinable @inline(__always) static func isASCII(_ slice: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = slice.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var combined: UInt64 = 0
        var position = 0
        while position + 8 <= slice.count {
            combined |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position += 8
        }
        while position < slice.count {
            combined |= UInt64(base[position])
            position += 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    /// Whether `object` is the ASCII string `text` (compared byte for byte, nothing allocated).
    package func isASCIIString(_ object: Object, equalTo text: String) -> Bool {
        guard let slice = asciiBytes(object) else { return false }
        var text = text
        return text.withUTF8 { $0.count == slice.count && $0.elementsEqual(slice) }
    }

    /// The ASCII string `object` as a `String`, or `nil` if it is not an ASCII string.
    @inlinable package func asciiString(_ object: Object) -> String? {
        asciiBytes(object).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The boolean `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func boolean(_ object: Object) -> Bool? {
        guard let offset = offset(of: object) else { return nil }
        switch bytes[offset] {
        case Marker.falseMarker: return false
        case Marker.trueMarker: return true
        default: return nil
        }
    }

    /// The integer `object` (1, 2 or 4 bytes unsigned, 8 bytes two's complement, as the decoder
    /// reads them), or `nil` if it is not one (a real included).
    @inlinable @inline(__always) package func integer(_ object: Object) -> Int64? {
        guard let offset = offset(of: object) else { return nil }
        let marker = bytes[offset], info = marker & 0x0F
        guard marker >> 4 == Marker.integerKind, info <= 3, let raw = unsigned(at: offset + 1, width: 1 << Int(info)) else { return nil }
        return info == 3 ? Int64(bitPattern: raw) : Int64(raw)
    }

    /// The date `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func date(_ object: Object) -> Date? {
        guard let offset = offset(of: object), bytes[offset] == Marker.dateMarker, let raw = unsigned(at: offset + 1, width: 8)
        else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw))
    }

    /// A scalar as ``PropertyListCodec/decode(_:)`` would produce it: `.boolean`, `.integer`
    /// (1, 2, 4 or 8 bytes), `.real` or `.date`; `nil` for anything else.
    package func scalar(_ object: Object) -> PropertyListValue? {
        guard let offset = offset(of: object) else { return nil }
        let marker = bytes[offset], info = marker & 0x0F
        switch marker >> 4 {
        case 0x0: return boolean(object).map { .boolean($0) }
        case Marker.integerKind: return integer(object).map { .integer($0) }
        case Marker.realKind:
            switch info {
            case 2: return unsigned(at: offset + 1, width: 4).map { .real(Double(Float(bitPattern: UInt32($0)))) }
            case 3: return unsigned(at: offset + 1, width: 8).map { .real(Double(bitPattern: $0)) }
            default: return nil
            }
        case Marker.dateMarker >> 4: return date(object).map { .date($0) }
        default: return nil
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
    /// One pass: containers are visited in the decoder's order and each object is checked once
    /// (shared objects counted per use, as the decoder counts them); each key string is hashed
    /// once into a table of distinct keys, so a dictionary's keys are told apart by comparing
    /// small integers, not bytes.
    package func acceptsWholeFile() -> Bool {
        BinaryPropertyListWalk.withWalk(reader: self) { walk in walk.expandedCount(of: topObject, depth: 0) } != nil
    }

    // MARK: Layout (the decoder's checks, answering nil instead of throwing)

    /// Where `object` starts, checked to lie in the object table.
    @inlinable @inline(__always) func offset(of object: Object) -> Int? { offset(ofIndex: object.index) }

    @inlinable @inline(__always) func offset(ofIndex index: Int) -> Int? {
        guard index >= 0, index < objectCount else { return nil }
        let entry = objectTableEnd + index * offsetIntSize
        let offset: Int
        switch offsetIntSize {  // the common widths without the loop
        case 1: offset = Int(bytes[entry])
        case 2: offset = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
        default:
            let wide = Self.bigEndian(bytes, at: entry, width: offsetIntSize)
            guard wide < UInt64(objectTableEnd) else { return nil }
            offset = Int(wide)
        }
        guard offset >= Marker.headerSize, offset < objectTableEnd else { return nil }
        return offset
    }

    /// The object reference at `position` (inside a container the caller found in bounds).
    @inlinable @inline(__always) func reference(at position: Int) -> Object? {
        let reference: UInt64
        switch objectRefSize {
        case 1: reference = UInt64(bytes[position])
        case 2: reference = UInt64(bytes[position]) << 8 | UInt64(bytes[position + 1])
        default: reference = Self.bigEndian(bytes, at: position, width: objectRefSize)
        }
        guard reference < UInt64(objectCount) else { return nil }
        return Object(index: Int(reference))
    }

    /// The element count of the object at `offset` and where its payload starts, checked so
    /// that `count * unitSize` bytes fit before the end of the object table.
    @inlinable @inline(__always) func length(at offset: Int, unitSize: Int) -> (count: Int, start: Int)? {
        let info = bytes[offset] & 0x0F
        var count = Int(info)
        var start = offset + 1
        if info == Marker.lengthFollows {
            guard start < objectTableEnd, bytes[start] >> 4 == Marker.integerKind, bytes[start] & 0x0F <= 3 else { return nil }
            let width = 1 << Int(bytes[start] & 0x0F)
            guard let value = unsigned(at: start + 1, width: width) else { return nil }
            start += 1 + width
            guard value <= UInt64(objectTableEnd) else { return nil }
            count = Int(value)
        }
        guard count <= (objectTableEnd - start) / unitSize else { return nil }
        return (count, start)
    }

    /// The big-endian integer of `width` bytes at `position`, checked to lie in the object table.
    @inlinable @inline(__always) func unsigned(at position: Int, width: Int) -> UInt64? {
        guard width <= objectTableEnd - position else { return nil }
        return Self.bigEndian(bytes, at: position, width: width)
    }

    @inlinable @inline(__always) static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, width: Int) -> UInt64 {
        var result: UInt64 = 0
        for index in position..<(position + width) {
            result = result << 8 | UInt64(bytes[index])
        }
        return result
    }
}
