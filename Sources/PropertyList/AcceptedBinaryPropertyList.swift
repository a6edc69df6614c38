#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// A binary property list (`bplist00`) that the validating walk accepted as a whole, read in
/// place: the walk proved every object reachable from the root well formed and supported
/// (offsets, references and lengths in range, dictionary keys strings and distinct, ASCII
/// strings ASCII, UTF-16 strings without unpaired surrogates, integers within `Int64`), so an
/// accessor only asks whether the object is of the kind it reads (`nil` when not).
///
/// Make one with ``withAccepted(_:_:)``. Only objects reached from ``top`` through these
/// accessors may be passed back (an ``Object`` of another file, or an index made up by the
/// caller, is outside what the walk checked). Valid inside the closure only: it reads the
/// caller's bytes. The accessors a typed reader calls per field are `@inlinable`, so a caller in
/// another module reads a field in a few instructions.
///
/// The type (and ``Object`` and ``DictionaryObject``) is `public` with only `package` members:
/// the compiler inlines a `package` type's `@inlinable` members into another module only when
/// the type itself is `public` (Swift 6.3); outside the package it has nothing to call.
public struct AcceptedBinaryPropertyList {
    /// One object of the file (an index into its offset table).
    public struct Object: Sendable, Hashable {
        @usableFromInline package let index: Int

        @inlinable init(index: Int) { self.index = index }
    }

    /// A dictionary object: `count` keys and values, read by position.
    public struct DictionaryObject {
        @usableFromInline package let count: Int
        @usableFromInline let keysStart: Int
        @usableFromInline let valuesStart: Int

        @inlinable init(count: Int, keysStart: Int, valuesStart: Int) {
            self.count = count
            self.keysStart = keysStart
            self.valuesStart = valuesStart
        }
    }

    /// The file's first byte.
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let offsetIntSize: Int
    @usableFromInline let objectRefSize: Int
    @usableFromInline let offsetTable: Int
    /// Number of objects (entries in the offset table).
    package let objectCount: Int
    /// The root object.
    package let top: Object

    init(base: UnsafePointer<UInt8>, trailer: BinaryPropertyListTrailer) {
        bytes = base
        offsetIntSize = trailer.offsetIntSize
        objectRefSize = trailer.objectRefSize
        offsetTable = trailer.offsetTableOffset
        objectCount = trailer.objectCount
        top = Object(index: trailer.topObject)
    }

    /// Checks `bytes` as a whole and runs `body` with the accepted file.
    ///
    /// - Returns: `body`'s answer.
    /// - Throws: ``PropertyListError`` when the bytes are not an acceptable `bplist00` file (the
    ///   errors ``PropertyListCodec/decode(_:)`` throws for them); `body` is then not run.
    package static func withAccepted<Result>(_ bytes: [UInt8], _ body: (AcceptedBinaryPropertyList) -> Result) throws(PropertyListError) -> Result {
        try bytes.withUnsafeBufferPointer { buffer throws(PropertyListError) in try BinaryPropertyListWalk.accept(buffer, body) }
    }

    /// `object` and everything under it as a ``PropertyListValue`` (a string the writer shared
    /// becomes one `String` shared by every container that uses it).
    package func value(_ object: Object) -> PropertyListValue {
        var decoder = BinaryPropertyListDecoder(file: self)
        return decoder.value(object)
    }

    // MARK: Typed access

    /// The dictionary `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func dictionary(_ object: Object) -> DictionaryObject? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0xD else { return nil }
        let (count, start) = length(at: offset)
        return DictionaryObject(count: count, keysStart: start, valuesStart: start &+ count &* objectRefSize)
    }

    /// How many bytes an object reference takes (1 to 8): a reader reading many values may switch
    /// on it once, around its loop, so that each ``value(_:of:)`` inside is specialised to it.
    @inlinable @inline(__always) package var referenceWidth: Int { objectRefSize }

    /// The key at `position` (below `dictionary.count`): always a string.
    @inlinable @inline(__always) package func key(_ position: Int, of dictionary: DictionaryObject) -> Object {
        reference(at: dictionary.keysStart &+ position &* objectRefSize)
    }

    /// The value at `position` (below `dictionary.count`).
    @inlinable @inline(__always) package func value(_ position: Int, of dictionary: DictionaryObject) -> Object {
        reference(at: dictionary.valuesStart &+ position &* objectRefSize)
    }

    /// Whether `dictionary` has the same key object as `other` at every position (as every
    /// entry of one shape has when the writer stores each key string once).
    @inlinable @inline(__always) package func hasSameKeys(_ dictionary: DictionaryObject, as other: DictionaryObject) -> Bool {
        dictionary.count == other.count
            && RawBytes.equal(bytes + dictionary.keysStart, bytes + other.keysStart, count: dictionary.count &* objectRefSize)
    }

    /// The bytes of `object` when it is a string stored in ASCII (which is text as it stands);
    /// `nil` for any other kind, a UTF-16 string included.
    @inlinable @inline(__always) package func asciiBytes(_ object: Object) -> UnsafeBufferPointer<UInt8>? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0x5 else { return nil }
        let (count, start) = length(at: offset)
        return UnsafeBufferPointer(start: bytes + start, count: count)
    }

    /// The string `object` (stored in ASCII or UTF-16), or `nil` if it is not a string.
    @inlinable package func string(_ object: Object) -> String? {
        // ASCII is valid UTF-8, so the standard library's check (which every way of making a
        // `String` from bytes runs) takes its all-ASCII fast path; decoding from the buffer copies
        // once, straight into a small string or into storage of the exact size.
        if let ascii = asciiBytes(object) { return String(decoding: ascii, as: UTF8.self) }
        return utf16String(object)
    }

    /// The UTF-16 string `object`, or `nil` if it is not one.
    @usableFromInline func utf16String(_ object: Object) -> String? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0x6 else { return nil }
        let (count, start) = length(at: offset)
        return BinaryPropertyListUTF16.string(bytes + start, count: count)
    }

    /// The boolean `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func boolean(_ object: Object) -> Bool? {
        switch bytes[offset(of: object)] {
        case 0x08: return false
        case 0x09: return true
        default: return nil
        }
    }

    /// The integer `object` (1, 2 or 4 bytes unsigned, 8 bytes two's complement, 16 bytes whose
    /// value fits in `Int64`), or `nil` if it is not one (a real included).
    @inlinable @inline(__always) package func integer(_ object: Object) -> Int64? {
        let offset = offset(of: object)
        let marker = bytes[offset]
        guard marker >> 4 == 0x1 else { return nil }
        switch marker & 0x0F {  // 0...4, checked by the walk
        case 3: return Int64(bitPattern: eightBytes(at: offset &+ 1))
        case 4: return Int64(bitPattern: eightBytes(at: offset &+ 9))  // the walk checked the high half is only sign
        case let info: return Int64(bigEndian(at: offset &+ 1, width: 1 &<< Int(info)))
        }
    }

    /// The real `object` (4 or 8 bytes), or `nil` if it is not one (an integer included).
    @inlinable package func real(_ object: Object) -> Double? {
        let offset = offset(of: object)
        let marker = bytes[offset]
        guard marker >> 4 == 0x2 else { return nil }
        if marker & 0x0F == 2 { return Double(Float(bitPattern: UInt32(bigEndian(at: offset &+ 1, width: 4)))) }
        return Double(bitPattern: eightBytes(at: offset &+ 1))
    }

    /// The date `object`, or `nil` if it is not one.
    @inlinable @inline(__always) package func date(_ object: Object) -> Date? {
        let offset = offset(of: object)
        guard bytes[offset] == 0x33 else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(bitPattern: eightBytes(at: offset &+ 1)))
    }

    /// The data `object`'s bytes, or `nil` if it is not data.
    func data(_ object: Object) -> UnsafeBufferPointer<UInt8>? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0x4 else { return nil }
        let (count, start) = length(at: offset)
        return UnsafeBufferPointer(start: bytes + start, count: count)
    }

    /// The array `object`'s element count and where its references start, or `nil` if it is not an array.
    func array(_ object: Object) -> (count: Int, start: Int)? {
        let offset = offset(of: object)
        guard bytes[offset] >> 4 == 0xA else { return nil }
        return length(at: offset)
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

    /// The element count of the container, string or data at `offset` and where its payload starts.
    @inlinable @inline(__always) func length(at offset: Int) -> (count: Int, start: Int) {
        let info = bytes[offset] & 0x0F
        guard info == 0x0F else { return (Int(info), offset &+ 1) }
        let width = 1 &<< Int(bytes[offset &+ 1] & 0x0F)
        return (Int(truncatingIfNeeded: bigEndian(at: offset &+ 2, width: width)), offset &+ 2 &+ width)
    }

    @inlinable @inline(__always) func eightBytes(at position: Int) -> UInt64 {
        UInt64(bigEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
    }

    /// The big-endian unsigned integer of `width` (1...8) bytes at `position`.
    @inlinable @inline(__always) func bigEndian(at position: Int, width: Int) -> UInt64 {
        if width == 8 { return eightBytes(at: position) }
        var result: UInt64 = 0
        for index in position..<(position &+ width) {
            result = result << 8 | UInt64(bytes[index])
        }
        return result
    }
}
