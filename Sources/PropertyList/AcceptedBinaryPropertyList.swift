#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// A binary property list that ``BinaryPropertyListReader/acceptsWholeFile()`` accepted, read
/// without checking again what that walk proved for every object reachable from the root:
/// offsets and object references in range, lengths that fit, dictionary keys that are ASCII
/// strings, ASCII strings without a byte above 0x7F, integers of 1–8 bytes, dates and reals of
/// their full width. What is left to each accessor is the type check (`nil` when the object
/// is not of the kind asked for).
///
/// Only ``BinaryPropertyListReader/accepted()`` makes one, and only objects reached from
/// ``top`` through these accessors may be passed back (an ``Object`` of another file, or an
/// index made up by the caller, is outside what the walk checked). Valid inside
/// ``BinaryPropertyListReader/withReader(_:_:)`` only; it reads the caller's bytes.
package struct AcceptedBinaryPropertyList {
    package typealias Object = BinaryPropertyListReader.Object
    package typealias DictionaryObject = BinaryPropertyListReader.DictionaryObject

    /// The file's first byte (the file is at least a header and a trailer long).
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let offsetIntSize: Int
    @usableFromInline let objectRefSize: Int
    @usableFromInline let offsetTable: Int
    /// Number of objects (entries in the offset table).
    package let objectCount: Int
    /// The root object.
    package let top: Object

    init(reader: BinaryPropertyListReader, base: UnsafePointer<UInt8>) {
        bytes = base
        offsetIntSize = reader.offsetIntSize
        objectRefSize = reader.objectRefSize
        offsetTable = reader.objectTableEnd
        objectCount = reader.objectCount
        top = reader.top
    }

    /// The dictionary `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func dictionary(_ object: Object) -> DictionaryObject? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0xD else { return nil }
        let (count, start) = length(at: offset)
        return DictionaryObject(count: count, keysStart: start, valuesStart: start &+ count &* objectRefSize)
    }

    /// The key at `position` (below `dictionary.count`): always an ASCII string.
    @inlinable @inline(__always) package func key(_ position: Int, of dictionary: DictionaryObject) -> Object {
        reference(at: dictionary.keysStart &+ position &* objectRefSize)
    }

    /// The value at `position` (below `dictionary.count`).
    @inlinable @inline(__always) package func value(_ position: Int, of dictionary: DictionaryObject) -> Object {
        reference(at: dictionary.valuesStart &+ position &* objectRefSize)
    }

    /// The bytes of the ASCII string `object` (every key is one), or `nil` for any other kind,
    /// a UTF-16 string included.
    @inlinable @inline(__always) package func asciiBytes(_ object: Object) -> UnsafeBufferPointer<UInt8>? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0x5 else { return nil }
        let (count, start) = length(at: offset)
        return UnsafeBufferPointer(start: bytes + start, count: count)
    }

    /// The ASCII string `object` as a `String`, its bytes copied once and not validated again,
    /// or `nil` if it is not an ASCII string.
    @inlinable package func asciiString(_ object: Object) -> String? {
        guard let ascii = asciiBytes(object) else { return nil }
        return String(unsafeUninitializedCapacity: ascii.count) { buffer in
            guard let destination = buffer.baseAddress, let source = ascii.baseAddress else { return 0 }
            destination.initialize(from: source, count: ascii.count)
            return ascii.count
        }
    }

    /// The boolean `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func boolean(_ object: Object) -> Bool? {
        switch bytes[offset(of: object)] {
        case 0x08: return false
        case 0x09: return true
        default: return nil
        }
    }

    /// The integer `object` (1, 2 or 4 bytes unsigned, 8 bytes two's complement, as the decoder
    /// reads them), or `nil` if it is not one (a real included).
    @inlinable @inline(__always) package func integer(_ object: Object) -> Int64? {
        let offset = offset(of: object)
        let marker = bytes[offset]
        guard marker >> 4 == 0x1 else { return nil }
        let info = marker & 0x0F  // 0...3, checked by the walk
        let raw = bigEndian(at: offset &+ 1, width: 1 &<< Int(info))
        return info == 3 ? Int64(bitPattern: raw) : Int64(raw)
    }

    /// The date `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func date(_ object: Object) -> Date? {
        let offset = offset(of: object)
        guard bytes[offset] == 0x33 else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: eightBytes(at: offset &+ 1)))
    }

    /// A scalar as ``PropertyListCodec/decode(_:)`` would produce it: `.boolean`, `.integer`,
    /// `.real` or `.date`; `nil` for anything else.
    package func scalar(_ object: Object) -> PropertyListValue? {
        let offset = offset(of: object)
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x0: return boolean(object).map { .boolean($0) }
        case 0x1: return integer(object).map { .integer($0) }
        case 0x2:  // 4 or 8 bytes, checked by the walk
            if marker & 0x0F == 2 { return .real(Double(Float(bitPattern: UInt32(bigEndian(at: offset + 1, width: 4))))) }
            return .real(Double(bitPattern: eightBytes(at: offset + 1)))
        case 0x3: return date(object).map { .date($0) }
        default: return nil
        }
    }

    // MARK: Layout, as the walk found it (wrapping arithmetic: every position is inside the file)

    @inlinable @inline(__always) func offset(of object: Object) -> Int {
        let entry = offsetTable &+ object.index &* offsetIntSize
        switch offsetIntSize {
        case 1: return Int(bytes[entry])
        case 2: return Int(bytes[entry]) &<< 8 | Int(bytes[entry &+ 1])
        default: return Int(truncatingIfNeeded: bigEndian(at: entry, width: offsetIntSize))
        }
    }

    @inlinable @inline(__always) func reference(at position: Int) -> Object {
        switch objectRefSize {
        case 1: return Object(index: Int(bytes[position]))
        case 2: return Object(index: Int(bytes[position]) &<< 8 | Int(bytes[position &+ 1]))
        default: return Object(index: Int(truncatingIfNeeded: bigEndian(at: position, width: objectRefSize)))
        }
    }

    /// The element count of the container or string at `offset` and where its payload starts.
    @inlinable @inline(__always) func length(at offset: Int) -> (count: Int, start: Int) {
        let info = bytes[offset] & 0x0F
        guard info == 0x0F else { return (Int(info), offset &+ 1) }
        let width = 1 &<< Int(bytes[offset &+ 1] & 0x0F)
        return (Int(truncatingIfNeeded: bigEndian(at: offset &+ 2, width: width)), offset &+ 2 &+ width)
    }

    @inlinable @inline(__always) func eightBytes(at position: Int) -> UInt64 {
        UInt64(bigEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
    }

    @inlinable @inline(__always) func bigEndian(at position: Int, width: Int) -> UInt64 {
        if width == 8 { return eightBytes(at: position) }
        var result: UInt64 = 0
        for index in position..<(position + width) {
            result = result << 8 | UInt64(bytes[index])
        }
        return result
    }
}

extension BinaryPropertyListReader {
    /// The file for reading without repeated checks, when ``acceptsWholeFile()`` accepts it;
    /// `nil` otherwise (the caller then asks ``PropertyListCodec/decode(_:)``).
    package func accepted() -> AcceptedBinaryPropertyList? {
        guard let base = bytes.baseAddress, acceptsWholeFile() else { return nil }
        return AcceptedBinaryPropertyList(reader: self, base: base)
    }
}
