#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// Writes a binary property list (`bplist00`) that Foundation's `PropertyListSerialization`,
/// Apple's CoreFoundation and Python's `plistlib` read back.
///
/// The output is canonical for a given value: the top object first, then objects in depth-first
/// order; dictionary keys sorted; strings, integers and booleans written once and shared by
/// reference (strings only when their UTF-8 bytes are identical, not merely canonically
/// equivalent); strings in ASCII when they are ASCII, else UTF-16BE; integers in the fewest of
/// 1, 2, 4 or 8 bytes, negative ones in 8 (as Apple does); reals and dates as 8-byte doubles;
/// offsets and references in the fewest bytes that address the file.
///
/// Two passes. The first walks the value once and appends, in object order, each object's
/// bytes that do not depend on the reference width (a scalar's whole encoding, a container's
/// marker and count) to one buffer, and the container's child indexes to another. A string,
/// integer or boolean is shared by looking its freshly appended bytes up in
/// ``BinaryPropertyListUniquing`` (equal bytes are an equal value of a shareable kind) and
/// dropping them again when found. The second pass, once the object count fixes the reference
/// width and the table size fixes the offset width, writes the file into one allocation of
/// exactly its size.
struct BinaryPropertyListEncoder {
    private typealias Format = BinaryPropertyListFormat

    /// One object of the table: where its fixed bytes end in `prefixes` (they start where the
    /// previous object's end) and how many slots of `references` are its children (they follow
    /// the previous object's).
    private struct ObjectSpan {
        var prefixEnd: Int
        var referenceCount: Int
    }

    private let prefixes = PrefixBuffer(capacity: 512)
    private var objects: [ObjectSpan] = []
    private var references: [Int] = []
    private var uniquing = BinaryPropertyListUniquing()

    /// Encodes `value`.
    ///
    /// - Throws: ``PropertyListError/encodingFailed(reason:)`` for a date that is not finite
    ///   (no reader can turn it back into a date) or containers nested deeper than
    ///   ``BinaryPropertyListFormat/maximumDepth`` (our decoder would refuse the file).
    static func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var encoder = BinaryPropertyListEncoder()
        encoder.objects.reserveCapacity(64)
        encoder.references.reserveCapacity(64)
        _ = try encoder.flatten(value, depth: 0)
        return encoder.write()
    }

    // MARK: Flattening

    /// Adds `value` and everything under it to the object table; returns its index.
    private mutating func flatten(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        let start = prefixes.count
        switch value {
        case .string(let string):
            appendString(string)
            return shared(from: start)
        case .integer(let integer):
            appendInteger(integer)
            return shared(from: start)
        case .boolean(let boolean):
            prefixes.append(boolean ? Format.trueMarker : Format.falseMarker)
            return shared(from: start)
        case .real(let real):
            prefixes.append(Format.realKind << 4 | 3)
            appendBigEndian(real.bitPattern, width: 8)
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else { throw .encodingFailed(reason: "a date is not finite (\(seconds))") }
            prefixes.append(Format.dateMarker)
            appendBigEndian(seconds.bitPattern, width: 8)
        case .data(let bytes):
            appendMarker(kind: Format.dataKind, count: bytes.count)
            bytes.withUnsafeBufferPointer { prefixes.append($0) }
        case .array(let elements):
            guard depth < Format.maximumDepth else { throw tooDeep() }
            let (index, first) = addContainer(kind: Format.arrayKind, count: elements.count, slots: elements.count)
            for position in elements.indices {
                let child = try flatten(elements[position], depth: depth + 1)
                references[first + position] = child
            }
            return index
        case .dictionary(let entries):
            guard depth < Format.maximumDepth else { throw tooDeep() }
            let (index, first) = addContainer(kind: Format.dictionaryKind, count: entries.count, slots: 2 * entries.count)
            // Every key first, then every value, as CoreFoundation orders them; the members are
            // in key order already, and read where they are stored rather than copied out.
            let members = entries.members
            for position in members.indices {
                let start = prefixes.count
                appendString(members[position].key)
                references[first + position] = shared(from: start)
            }
            for position in members.indices {
                let child = try flatten(members[position].value, depth: depth + 1)
                references[first + members.count + position] = child
            }
            return index
        }
        objects.append(ObjectSpan(prefixEnd: prefixes.count, referenceCount: 0))
        return objects.count - 1
    }

    /// The shareable scalar whose bytes were just appended from `start`: an earlier object with
    /// the same bytes (and these bytes dropped), else a new object.
    private mutating func shared(from start: Int) -> Int {
        let candidate = objects.count
        if let existing = uniquing.indexOrInsert(candidate, bytes: start..<prefixes.count, of: prefixes.bytes) {
            prefixes.truncate(to: start)
            return existing
        }
        objects.append(ObjectSpan(prefixEnd: prefixes.count, referenceCount: 0))
        return candidate
    }

    /// Appends a container's marker and reserves `slots` reference slots for its children.
    private mutating func addContainer(kind: UInt8, count: Int, slots: Int) -> (index: Int, firstSlot: Int) {
        appendMarker(kind: kind, count: count)
        let first = references.count
        references.append(contentsOf: repeatElement(0, count: slots))
        objects.append(ObjectSpan(prefixEnd: prefixes.count, referenceCount: slots))
        return (objects.count - 1, first)
    }

    private func tooDeep() -> PropertyListError {
        .encodingFailed(reason: "containers nest deeper than \(Format.maximumDepth) levels")
    }

    // MARK: Scalars

    /// ASCII as one byte per character, anything else as UTF-16BE.
    private mutating func appendString(_ string: String) {
        // A bridged string without contiguous UTF-8 is copied into an array first.
        let appendedASCII = string.utf8.withContiguousStorageIfAvailable { appendIfASCII($0) }
            ?? Array(string.utf8).withUnsafeBufferPointer { appendIfASCII($0) }
        guard !appendedASCII else { return }
        appendMarker(kind: Format.utf16StringKind, count: string.utf16.count)
        for unit in string.utf16 { appendBigEndian(UInt64(unit), width: 2) }
    }

    /// Appends `utf8` as an ASCII string if every byte is ASCII (and says so), else nothing.
    private mutating func appendIfASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var combined: UInt8 = 0
        for byte in utf8 { combined |= byte }
        guard combined < 0x80 else { return false }
        appendMarker(kind: Format.asciiStringKind, count: utf8.count)
        prefixes.append(utf8)
        return true
    }

    /// Non-negative integers in the fewest bytes (read back as unsigned), negative in 8.
    private mutating func appendInteger(_ integer: Int64) {
        let width = integer < 0 ? 8 : Format.byteWidth(for: UInt64(integer))
        prefixes.append(Format.integerKind << 4 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: integer), width: width)
    }

    /// A marker whose low nibble is `count`, or 0xF followed by `count` as an integer object.
    private mutating func appendMarker(kind: UInt8, count: Int) {
        if count < Int(Format.lengthFollows) {
            prefixes.append(kind << 4 | UInt8(count))
        } else {
            prefixes.append(kind << 4 | Format.lengthFollows)
            appendInteger(Int64(count))
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            prefixes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    // MARK: Writing

    /// The file: magic, objects (fixed bytes, then references), offset table, trailer.
    private func write() -> [UInt8] {
        let referenceSize = Format.byteWidth(for: UInt64(objects.count - 1))
        let offsetTableOffset = Format.headerSize + prefixes.count + references.count * referenceSize
        let offsetSize = Format.byteWidth(for: UInt64(offsetTableOffset))
        let total = offsetTableOffset + objects.count * offsetSize + Format.trailerSize
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            Format.magic.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            var position = Format.headerSize
            var offsetPosition = offsetTableOffset
            let fixed = prefixes.bytes
            references.withUnsafeBufferPointer { children in
                var prefixStart = 0, slot = 0
                for object in objects {
                    Self.store(UInt64(position), width: offsetSize, at: offsetPosition, in: base)
                    offsetPosition += offsetSize
                    let length = object.prefixEnd - prefixStart
                    (base + position).copyMemory(from: fixed.baseAddress! + prefixStart, byteCount: length)
                    position += length
                    prefixStart = object.prefixEnd
                    for _ in 0..<object.referenceCount {
                        Self.store(UInt64(children[slot]), width: referenceSize, at: position, in: base)
                        position += referenceSize
                        slot += 1
                    }
                }
            }
            (base + offsetPosition).initializeMemory(as: UInt8.self, repeating: 0, count: 6)  // the trailer's unused bytes
            position = offsetPosition + 6
            base.storeBytes(of: UInt8(offsetSize), toByteOffset: position, as: UInt8.self)
            base.storeBytes(of: UInt8(referenceSize), toByteOffset: position + 1, as: UInt8.self)
            Self.store(UInt64(objects.count), width: 8, at: position + 2, in: base)
            Self.store(0, width: 8, at: position + 10, in: base)  // the top object is always the first
            Self.store(UInt64(offsetTableOffset), width: 8, at: position + 18, in: base)
            initialized = total
        }
    }

    /// `value` big-endian in `width` (1, 2, 4 or 8) bytes at `offset`.
    @inline(__always)
    private static func store(_ value: UInt64, width: Int, at offset: Int, in base: UnsafeMutableRawPointer) {
        switch width {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: offset, as: UInt8.self)
        case 2: base.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt16.self)
        case 4: base.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: offset, as: UInt32.self)
        default: base.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
        }
    }
}

/// The encoder's first-pass bytes: appended to a byte or a run at a time and cut back when a
/// shared object's bytes turn out to be there already, without `Array`'s uniqueness and
/// capacity checks on every call. Only the encoder holds one, so nothing else sees it change.
private final class PrefixBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    deinit { base.deallocate() }

    /// The bytes so far; valid until the next append.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base[count] = byte
        count += 1
    }

    func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let start = run.baseAddress, !run.isEmpty else { return }
        if count + run.count > capacity { grow(toHold: count + run.count) }
        (base + count).initialize(from: start, count: run.count)
        count += run.count
    }

    /// Drops the bytes from `newCount` on.
    func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        count = newCount
    }

    private func grow(toHold needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}
