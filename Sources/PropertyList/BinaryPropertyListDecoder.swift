#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// The one place that decides whether a binary property list (`bplist00`) is acceptable, and
/// reads it: a walk over every object reachable from the root that checks each as it goes,
/// throws at the first problem and builds the ``PropertyListValue`` of what it accepted.
///
/// Refused, each with a one-line ``PropertyListError/malformed(reason:)``: a bad magic or
/// version, a trailer whose sizes are 0 or above 8 or whose offset table lies outside the file,
/// offsets and references out of range, lengths running past the object table, a container
/// that contains itself (a cycle) or nests deeper than ``BinaryPropertyListFormat/maximumDepth``,
/// more than ``BinaryPropertyListFormat/maximumValueCount`` values once shared references are
/// expanded, non-ASCII bytes in an ASCII string, unpaired UTF-16 surrogates, unknown markers,
/// and a dictionary with the same key twice (refused rather than "last wins": a duplicated key
/// is either corruption or an attempt to show two readers two different values; keys are
/// compared as Swift strings, so two encodings of one text, or canonically equivalent texts,
/// are the same key). ``PropertyListError/unsupportedValue(path:type:)`` names values that are
/// well formed but have no ``PropertyListValue`` case: null, UIDs, sets, integers outside
/// `Int64`, non-string keys; its path names where (`a.b[2]`).
///
/// Objects are visited depth first, each dictionary's key before its value and its repeated keys
/// after its values, so the error reported for a file with several problems is the first one in
/// that order. Each object is checked and built once and then shared by every container that
/// uses it (a string stored once is one `String`), so the work is linear in the file's size.
struct BinaryPropertyListDecoder {
    private typealias Format = BinaryPropertyListFormat

    private let bytes: UnsafeBufferPointer<UInt8>
    private let trailer: BinaryPropertyListTrailer
    /// Per object: its value once built.
    private var values: [PropertyListValue?]
    /// Per object: 0 unvisited, -1 while its container is being read (meeting it again then
    /// means a cycle), else how many values it expands to (itself and everything under it,
    /// shared parts counted once per use).
    private var counts: [Int32]

    /// Decodes `bytes`, which must start with `bplist00`.
    ///
    /// - Throws: ``PropertyListError`` as described on the type; never traps on any input.
    static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        guard bytes.count >= Format.magic.count, bytes.prefix(6).elementsEqual(Format.magic.prefix(6)) else {
            throw .malformed(reason: "missing the bplist00 magic")
        }
        guard bytes.prefix(8).elementsEqual(Format.magic) else {
            throw .malformed(reason: "unsupported binary property list version '\(String(decoding: bytes[6..<8], as: UTF8.self).debugDescription)'")
        }
        guard bytes.count <= Format.maximumInputSize else {
            throw .malformed(reason: "binary property list of \(bytes.count) bytes exceeds the \(Format.maximumInputSize)-byte limit")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(PropertyListError) in
            let trailer = try BinaryPropertyListTrailer(buffer)
            var decoder = BinaryPropertyListDecoder(bytes: buffer, trailer: trailer)
            _ = try decoder.object(trailer.topObject, depth: 0)
            return decoder.values[trailer.topObject]!
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, trailer: BinaryPropertyListTrailer) {
        self.bytes = bytes
        self.trailer = trailer
        values = Array(repeating: nil, count: trailer.objectCount)
        counts = Array(repeating: 0, count: trailer.objectCount)
    }

    /// Objects lie in `headerSize..<objectTableEnd`.
    private var objectTableEnd: Int { trailer.offsetTableOffset }

    // MARK: Objects

    /// Checks and builds object `index` into `values` on its first use; returns how many values
    /// it expands to. `depth` is the nesting of the container that references it (0 for the root).
    @inline(__always)
    private mutating func object(_ index: Int, depth: Int) throws(PropertyListError) -> Int {
        let known = counts[index]
        if known > 0 { return Int(known) }
        return try firstUse(index, depth: depth)
    }

    /// ``object(_:depth:)`` for an object not yet built, or one whose container is being read.
    private mutating func firstUse(_ index: Int, depth: Int) throws(PropertyListError) -> Int {
        if counts[index] < 0 { throw cycle(index) }
        let offset = try offset(ofObject: index)
        let marker = bytes[offset]
        var count = 1
        switch marker >> 4 {
        case Format.arrayKind:
            counts[index] = -1
            count = try array(info: marker & 0x0F, at: offset, index: index, depth: depth + 1)
        case Format.dictionaryKind:
            counts[index] = -1
            count = try dictionary(info: marker & 0x0F, at: offset, index: index, depth: depth + 1)
        default:
            values[index] = try scalar(index, at: offset)
        }
        counts[index] = Int32(count)
        return count
    }

    /// The scalar (not a container) object `index` whose marker is at `offset`.
    private func scalar(_ index: Int, at offset: Int) throws(PropertyListError) -> PropertyListValue {
        let marker = bytes[offset]
        let info = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case Format.falseMarker: return .boolean(false)
            case Format.trueMarker: return .boolean(true)
            default: throw unsupportedMarker(marker, index: index)
            }
        case Format.integerKind:
            guard info <= 3 else { return .integer(try wideInteger(index, at: offset)) }
            let width = 1 << Int(info)
            try fits(at: offset + 1, width: width, index: index)
            let value = bigEndian(at: offset + 1, width: width)
            return .integer(width == 8 ? Int64(bitPattern: value) : Int64(value))
        case Format.realKind:
            guard info == 2 || info == 3 else { throw invalidSize("real", index: index, info: info) }
            try fits(at: offset + 1, width: 1 << Int(info), index: index)
            if info == 2 { return .real(Double(Float(bitPattern: UInt32(bigEndian(at: offset + 1, width: 4))))) }
            return .real(Double(bitPattern: bigEndian(at: offset + 1, width: 8)))
        case Format.dateMarker >> 4:
            guard marker == Format.dateMarker else { throw unknownMarker(marker, index: index) }
            try fits(at: offset + 1, width: 8, index: index)
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bigEndian(at: offset + 1, width: 8))))
        case Format.dataKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 1)
            return .data(Array(bytes[start..<(start + count)]))
        case Format.asciiStringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 1)
            let ascii = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
            guard ascii.allSatisfy({ $0 < 0x80 }) else { throw notASCII(index) }
            return .string(String(decoding: ascii, as: UTF8.self))
        case Format.utf16StringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 2)
            let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
            guard let string = String(validating: units, as: UTF16.self) else { throw unpairedSurrogate(index) }
            return .string(string)
        default:
            throw unsupportedMarker(marker, index: index)
        }
    }

    /// The integer object `index` at `offset` whose size code is above 3: 16 bytes are kept only
    /// when the value fits in `Int64`, as Apple's reader does; other codes are invalid.
    private func wideInteger(_ index: Int, at offset: Int) throws(PropertyListError) -> Int64 {
        let info = bytes[offset] & 0x0F
        guard info == 4 else { throw invalidSize("integer", index: index, info: info) }
        try fits(at: offset + 1, width: 8, index: index)
        try fits(at: offset + 9, width: 8, index: index)
        let high = Int64(bitPattern: bigEndian(at: offset + 1, width: 8))
        let low = Int64(bitPattern: bigEndian(at: offset + 9, width: 8))
        guard high == low >> 63 else { throw .unsupportedValue(path: "", type: "integer outside the 64-bit range") }
        return low
    }

    private mutating func array(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, start) = try length(info: info, at: offset, index: index, unitSize: refSize)
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)
        var total = 1
        for position in 0..<count {
            let child = try reference(at: start + position * refSize, from: index)
            do { total += try object(child, depth: depth) } catch { throw error.nested(under: .index(position)) }
            guard total <= Format.maximumValueCount else { throw tooManyValues() }  // each term at most that
            elements.append(values[child]!)
        }
        values[index] = .array(elements)
        return total
    }

    /// A dictionary: each key checked (a string) before its value, whose errors name the key
    /// they are under; then that no key is there twice.
    private mutating func dictionary(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, keysStart) = try length(info: info, at: offset, index: index, unitSize: 2 * refSize)
        var members: [PropertyListDictionary.Member] = []
        members.reserveCapacity(count)
        var total = 1
        for position in 0..<count {
            let keyObject = try reference(at: keysStart + position * refSize, from: index)
            let valueObject = try reference(at: keysStart + (count + position) * refSize, from: index)
            total += try object(keyObject, depth: depth)
            guard case .string(let name)? = values[keyObject] else {
                throw .unsupportedValue(path: "", type: "dictionary key \(values[keyObject]?.kindInWords.split(separator: " ").last ?? "")")
            }
            do { total += try object(valueObject, depth: depth) } catch { throw error.nested(under: .key(name)) }
            guard total <= Format.maximumValueCount else { throw tooManyValues() }
            members.append(PropertyListDictionary.Member(key: name, value: values[valueObject]!))
        }
        do throws(PropertyListDictionary.RepeatedKey) {
            values[index] = .dictionary(try PropertyListDictionary(sorting: members))
            return total
        } catch {
            throw .malformed(reason: "dictionary (object \(index)) has the key \(error.key.quotedForMessage) twice")
        }
    }

    // MARK: Layout

    /// The big-endian unsigned integer of `width` (1...8) bytes at `position`, inside the file.
    private func bigEndian(at position: Int, width: Int) -> UInt64 {
        BinaryPropertyListTrailer.unsigned(bytes, at: position, width: width)
    }

    /// Where object `index` starts, checked to lie in the object table.
    private func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        let offset = bigEndian(at: trailer.offsetTableOffset + index * trailer.offsetIntSize, width: trailer.offsetIntSize)
        guard offset >= UInt64(Format.headerSize), offset < UInt64(objectTableEnd) else { throw outsideTheObjectTable(index, offset) }
        return Int(offset)
    }

    /// The object reference at `position` inside container `container` (whose references
    /// ``length(info:at:index:unitSize:)`` found inside the object table), checked to be in range.
    private func reference(at position: Int, from container: Int) throws(PropertyListError) -> Int {
        let reference = bigEndian(at: position, width: trailer.objectRefSize)
        guard reference < UInt64(trailer.objectCount) else { throw outOfRange(reference, from: container) }
        return Int(reference)
    }

    /// The element count of the object whose marker is at `offset` (the low nibble, or an
    /// integer object after it when the nibble is 0xF) and where its payload starts; checked
    /// so that `count * unitSize` payload bytes fit before the end of the object table.
    private func length(info: UInt8, at offset: Int, index: Int, unitSize: Int) throws(PropertyListError) -> (count: Int, start: Int) {
        var count = Int(info)
        var start = offset + 1
        if info == Format.lengthFollows {
            guard start < objectTableEnd, bytes[start] >> 4 == Format.integerKind, bytes[start] & 0x0F <= 3 else { throw badLength(index) }
            let width = 1 << Int(bytes[start] & 0x0F)
            try fits(at: start + 1, width: width, index: index)
            let value = bigEndian(at: start + 1, width: width)
            start += 1 + width
            guard value <= UInt64(objectTableEnd) else { throw pastTheEnd(index) }
            count = Int(value)
        }
        // No overflow: `count` is at most the object table's end (below 2^28) and `unitSize` at most 16.
        guard count * unitSize <= objectTableEnd - start else { throw pastTheEnd(index) }
        return (count, start)
    }

    /// Checks that `width` bytes at `position` lie in the object table.
    private func fits(at position: Int, width: Int, index: Int) throws(PropertyListError) {
        guard width <= objectTableEnd - position else { throw pastTheEnd(index) }
    }

    // MARK: Errors

    private func outsideTheObjectTable(_ index: Int, _ offset: UInt64) -> PropertyListError {
        .malformed(reason: "object \(index) has offset \(offset) outside the object table \(Format.headerSize)..<\(objectTableEnd)")
    }

    private func outOfRange(_ reference: UInt64, from container: Int) -> PropertyListError {
        .malformed(reason: "object \(container) references object \(reference) but there are only \(trailer.objectCount)")
    }

    private func badLength(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) has a length that is not an integer of 1, 2, 4 or 8 bytes")
    }

    private func cycle(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) contains itself (a reference cycle)")
    }

    private func invalidSize(_ kind: String, index: Int, info: UInt8) -> PropertyListError {
        .malformed(reason: "\(kind) (object \(index)) has an invalid size code \(info)")
    }

    private func notASCII(_ index: Int) -> PropertyListError {
        .malformed(reason: "ASCII string (object \(index)) contains a byte above 0x7F")
    }

    private func unpairedSurrogate(_ index: Int) -> PropertyListError {
        .malformed(reason: "UTF-16 string (object \(index)) has an unpaired surrogate")
    }

    /// The error for a marker that is not a scalar this codec reads: null, UIDs and sets are
    /// well formed but have no ``PropertyListValue`` case; anything else is unknown.
    private func unsupportedMarker(_ marker: UInt8, index: Int) -> PropertyListError {
        switch marker >> 4 {
        case 0x0 where marker == 0x00: .unsupportedValue(path: "", type: "null")
        case 0x8: .unsupportedValue(path: "", type: "UID")
        case 0xB, 0xC: .unsupportedValue(path: "", type: "set")
        default: unknownMarker(marker, index: index)
        }
    }

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
