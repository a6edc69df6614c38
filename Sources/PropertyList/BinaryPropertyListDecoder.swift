#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// Reads a binary property list (`bplist00`) straight from its bytes, without Foundation's
/// serializer, failing closed on anything malformed.
///
/// Each object is decoded once and cached by its index, so a string that the writer uniqued
/// (every dictionary key of a snapshot entry, say) becomes one Swift `String` shared by every
/// dictionary that uses it, and the work is linear in the file's size. Refused, each with a
/// one-line ``PropertyListError/malformed(reason:)``: a bad magic or version, a trailer whose
/// sizes are 0 or above 8 or whose offset table lies outside the file, offsets and references
/// out of range, lengths running past the object table, a container that contains itself (a
/// cycle) or nests deeper than ``BinaryPropertyListFormat/maximumDepth``, more than
/// ``BinaryPropertyListFormat/maximumValueCount`` values once shared references are expanded,
/// non-ASCII bytes in an ASCII string, unpaired UTF-16 surrogates, unknown markers, and a
/// dictionary with the same key twice (refused rather than "last wins": a duplicated key is
/// either corruption or an attempt to show two readers two different values).
/// ``PropertyListError/unsupportedValue(path:type:)`` names values that are well formed but have
/// no ``PropertyListValue`` case: null, UIDs, sets, integers outside `Int64`, non-string keys.
struct BinaryPropertyListDecoder {
    private typealias Format = BinaryPropertyListFormat

    private let bytes: UnsafeBufferPointer<UInt8>
    private let trailer: BinaryPropertyListTrailer
    /// Objects lie in `headerSize..<objectTableEnd`.
    private let objectTableEnd: Int
    /// Per object: 0 not yet decoded, `inProgress` while its container is being decoded (meeting
    /// it again then means a cycle), else how many values it expands to (itself and everything
    /// under it, shared parts counted once per use), with the value in `decodedValues`.
    private var valueCounts: [Int]
    private var decodedValues: [PropertyListValue]
    private static let inProgress = -1

    /// Decodes `bytes`, which must start with `bplist00`.
    ///
    /// - Throws: ``PropertyListError`` as described on the type; never traps on any input.
    static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try bytes.withUnsafeBufferPointer { buffer throws(PropertyListError) in
            var decoder = try BinaryPropertyListDecoder(buffer)
            return try decoder.value(ofObject: decoder.trailer.topObject, depth: 0).value
        }
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListError) {
        guard bytes.count >= Format.magic.count, bytes.prefix(6).elementsEqual(Format.magic.prefix(6)) else {
            throw .malformed(reason: "missing the bplist00 magic")
        }
        guard bytes.prefix(8).elementsEqual(Format.magic) else {
            throw .malformed(reason: "unsupported binary property list version '\(String(decoding: bytes[6..<8], as: UTF8.self).debugDescription)'")
        }
        guard bytes.count <= Format.maximumInputSize else {
            throw .malformed(reason: "binary property list of \(bytes.count) bytes exceeds the \(Format.maximumInputSize)-byte limit")
        }
        self.bytes = bytes
        trailer = try BinaryPropertyListTrailer(bytes)
        objectTableEnd = trailer.offsetTableOffset
        valueCounts = Array(repeating: 0, count: trailer.objectCount)
        decodedValues = Array(repeating: .boolean(false), count: trailer.objectCount)
    }

    // MARK: Objects

    /// The value of object `index` (below `objectCount`) and how many values it expands to.
    private mutating func value(ofObject index: Int, depth: Int) throws(PropertyListError) -> (value: PropertyListValue, count: Int) {
        let known = valueCounts[index]
        if known > 0 { return (decodedValues[index], known) }
        if known == Self.inProgress { throw .malformed(reason: "object \(index) contains itself (a reference cycle)") }
        let offset = try offset(ofObject: index)
        let marker = bytes[offset]
        let info = marker & 0x0F
        let decoded: (value: PropertyListValue, count: Int)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case Format.falseMarker: decoded = (.boolean(false), 1)
            case Format.trueMarker: decoded = (.boolean(true), 1)
            case 0x00: throw .unsupportedValue(path: "", type: "null")
            default: throw unknownMarker(marker, index: index)
            }
        case Format.integerKind:
            decoded = (try integer(info: info, at: offset, index: index), 1)
        case Format.realKind:
            decoded = (try real(info: info, at: offset, index: index), 1)
        case Format.dateMarker >> 4:
            guard marker == Format.dateMarker else { throw unknownMarker(marker, index: index) }
            let seconds = Double(bitPattern: try unsigned(at: offset + 1, width: 8, index: index))
            decoded = (.date(Date(timeIntervalSinceReferenceDate: seconds)), 1)
        case Format.dataKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 1)
            decoded = (.data(Array(bytes[start..<(start + count)])), 1)
        case Format.asciiStringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 1)
            decoded = (.string(try asciiString(from: start, count: count, index: index)), 1)
        case Format.utf16StringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 2)
            decoded = (.string(try utf16String(from: start, count: count, index: index)), 1)
        case 0x8: throw .unsupportedValue(path: "", type: "UID")
        case 0xB, 0xC: throw .unsupportedValue(path: "", type: "set")
        case Format.arrayKind:
            valueCounts[index] = Self.inProgress
            decoded = try array(info: info, at: offset, index: index, depth: depth + 1)
        case Format.dictionaryKind:
            valueCounts[index] = Self.inProgress
            decoded = try dictionary(info: info, at: offset, index: index, depth: depth + 1)
        default:
            throw unknownMarker(marker, index: index)
        }
        valueCounts[index] = decoded.count
        decodedValues[index] = decoded.value
        return decoded
    }

    private mutating func array(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> (PropertyListValue, Int) {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, start) = try length(info: info, at: offset, index: index, unitSize: refSize)
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)
        var total = 1
        for position in 0..<count {
            let child = try reference(at: start + position * refSize, from: index)
            let element: (value: PropertyListValue, count: Int)
            do { element = try value(ofObject: child, depth: depth) } catch { throw error.nested(under: .index(position)) }
            total += element.count
            guard total <= Format.maximumValueCount else { throw tooManyValues() }
            elements.append(element.value)
        }
        return (.array(elements), total)
    }

    private mutating func dictionary(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> (PropertyListValue, Int) {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, keysStart) = try length(info: info, at: offset, index: index, unitSize: 2 * refSize)
        let valuesStart = keysStart + count * refSize
        // `init(minimumCapacity:)` is inlined and specialized; `reserveCapacity` is a generic call.
        var entries = [String: PropertyListValue](minimumCapacity: count)
        var total = 1
        for position in 0..<count {
            let keyObject = try reference(at: keysStart + position * refSize, from: index)
            let valueObject = try reference(at: valuesStart + position * refSize, from: index)
            let key = try value(ofObject: keyObject, depth: depth)
            guard case .string(let name) = key.value else {
                throw .unsupportedValue(path: "", type: "dictionary key \(key.value.kindDescription)")
            }
            let element: (value: PropertyListValue, count: Int)
            do { element = try value(ofObject: valueObject, depth: depth) } catch { throw error.nested(under: .key(name)) }
            total += key.count + element.count
            guard total <= Format.maximumValueCount else { throw tooManyValues() }
            guard entries.updateValue(element.value, forKey: name) == nil else {
                throw .malformed(reason: "dictionary (object \(index)) has the key \(name.quotedForMessage) twice")
            }
        }
        return (.dictionary(entries), total)
    }

    // MARK: Scalars

    private func integer(info: UInt8, at offset: Int, index: Int) throws(PropertyListError) -> PropertyListValue {
        switch info {
        case 0, 1, 2:  // 1, 2 and 4 bytes are unsigned
            return .integer(Int64(try unsigned(at: offset + 1, width: 1 << Int(info), index: index)))
        case 3:  // 8 bytes are two's complement
            return .integer(Int64(bitPattern: try unsigned(at: offset + 1, width: 8, index: index)))
        case 4:  // 16 bytes: kept only when the value fits in Int64, as Apple's reader does
            let high = Int64(bitPattern: try unsigned(at: offset + 1, width: 8, index: index))
            let low = try unsigned(at: offset + 9, width: 8, index: index)
            guard high == Int64(bitPattern: low) >> 63 else {
                throw .unsupportedValue(path: "", type: "integer outside the 64-bit range")
            }
            return .integer(Int64(bitPattern: low))
        default:
            throw .malformed(reason: "integer (object \(index)) has an invalid size code \(info)")
        }
    }

    private func real(info: UInt8, at offset: Int, index: Int) throws(PropertyListError) -> PropertyListValue {
        switch info {
        case 2: return .real(Double(Float(bitPattern: UInt32(try unsigned(at: offset + 1, width: 4, index: index)))))
        case 3: return .real(Double(bitPattern: try unsigned(at: offset + 1, width: 8, index: index)))
        default: throw .malformed(reason: "real (object \(index)) has an invalid size code \(info)")
        }
    }

    private func asciiString(from start: Int, count: Int, index: Int) throws(PropertyListError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
        var combined: UInt8 = 0
        for byte in slice { combined |= byte }
        guard combined < 0x80 else { throw .malformed(reason: "ASCII string (object \(index)) contains a byte above 0x7F") }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Transcodes `count` big-endian UTF-16 units to a `String`, refusing unpaired surrogates
    /// (Foundation would keep them; a Swift `String` cannot hold them faithfully).
    private func utf16String(from start: Int, count: Int, index: Int) throws(PropertyListError) -> String {
        let bytes = self.bytes
        var valid = true
        // One UTF-16 unit needs at most 3 UTF-8 bytes; a surrogate pair (two units) needs 4.
        let string = String(unsafeUninitializedCapacity: count * 3) { output in
            var written = 0
            var position = start
            let end = start + 2 * count
            func emit(_ byte: UInt32) {
                output[written] = UInt8(truncatingIfNeeded: byte)
                written += 1
            }
            while position < end {
                let unit = UInt32(bytes[position]) << 8 | UInt32(bytes[position + 1])
                position += 2
                var scalar = unit
                if unit & 0xF800 == 0xD800 {
                    guard unit < 0xDC00, position < end else { valid = false; return 0 }
                    let low = UInt32(bytes[position]) << 8 | UInt32(bytes[position + 1])
                    guard low & 0xFC00 == 0xDC00 else { valid = false; return 0 }
                    position += 2
                    scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                switch scalar {
                case ..<0x80:
                    emit(scalar)
                case ..<0x800:
                    emit(0xC0 | scalar >> 6); emit(0x80 | scalar & 0x3F)
                case ..<0x10000:
                    emit(0xE0 | scalar >> 12); emit(0x80 | scalar >> 6 & 0x3F); emit(0x80 | scalar & 0x3F)
                default:
                    emit(0xF0 | scalar >> 18); emit(0x80 | scalar >> 12 & 0x3F)
                    emit(0x80 | scalar >> 6 & 0x3F); emit(0x80 | scalar & 0x3F)
                }
            }
            return written
        }
        guard valid else { throw .malformed(reason: "UTF-16 string (object \(index)) has an unpaired surrogate") }
        return string
    }

    // MARK: Layout

    /// Where object `index` starts, checked to lie in the object table.
    private func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        let entry = trailer.offsetTableOffset + index * trailer.offsetIntSize
        let offset = BinaryPropertyListTrailer.unsigned(bytes, at: entry, width: trailer.offsetIntSize)
        guard offset >= UInt64(Format.headerSize), offset < UInt64(objectTableEnd) else {
            throw .malformed(reason: "object \(index) has offset \(offset) outside the object table \(Format.headerSize)..<\(objectTableEnd)")
        }
        return Int(offset)
    }

    /// The object reference at `position` inside container `container`, checked to be in range.
    private func reference(at position: Int, from container: Int) throws(PropertyListError) -> Int {
        let reference: UInt64
        switch trailer.objectRefSize {  // the common widths without the loop
        case 1: reference = UInt64(bytes[position])
        case 2: reference = UInt64(bytes[position]) << 8 | UInt64(bytes[position + 1])
        default: reference = BinaryPropertyListTrailer.unsigned(bytes, at: position, width: trailer.objectRefSize)
        }
        guard reference < UInt64(trailer.objectCount) else {
            throw .malformed(reason: "object \(container) references object \(reference) but there are only \(trailer.objectCount)")
        }
        return Int(reference)
    }

    /// The element count of the object whose marker is at `offset` (the low nibble, or an
    /// integer object after it when the nibble is 0xF) and where its payload starts; checked
    /// so that `count * unitSize` payload bytes fit before the end of the object table.
    private func length(info: UInt8, at offset: Int, index: Int, unitSize: Int) throws(PropertyListError) -> (count: Int, start: Int) {
        var count = Int(info)
        var start = offset + 1
        if info == Format.lengthFollows {
            guard start < objectTableEnd, bytes[start] >> 4 == Format.integerKind, bytes[start] & 0x0F <= 3 else {
                throw .malformed(reason: "object \(index) has a length that is not an integer of 1, 2, 4 or 8 bytes")
            }
            let width = 1 << Int(bytes[start] & 0x0F)
            let value = try unsigned(at: start + 1, width: width, index: index)
            start += 1 + width
            guard value <= UInt64(objectTableEnd) else { throw pastTheEnd(index) }
            count = Int(value)
        }
        guard count <= (objectTableEnd - start) / unitSize else { throw pastTheEnd(index) }
        return (count, start)
    }

    /// The big-endian integer of `width` bytes at `position`, checked to lie in the object table.
    private func unsigned(at position: Int, width: Int, index: Int) throws(PropertyListError) -> UInt64 {
        guard width <= objectTableEnd - position else { throw pastTheEnd(index) }
        return BinaryPropertyListTrailer.unsigned(bytes, at: position, width: width)
    }

    // MARK: Errors

    private func pastTheEnd(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) runs past the end of the object table")
    }

    private func unknownMarker(_ marker: UInt8, index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) has an unknown marker 0x\(String(marker, radix: 16, uppercase: true))")
    }

    private func tooDeep() -> PropertyListError {
        .malformed(reason: "containers nest deeper than \(Format.maximumDepth) levels")
    }

    private func tooManyValues() -> PropertyListError {
        .malformed(reason: "more than \(Format.maximumValueCount) values once shared references are expanded")
    }
}
