/// The one pass behind ``BinaryPropertyListReader/acceptsWholeFile()``: every object reachable
/// from the root checked as ``BinaryPropertyListDecoder`` checks it, answering `nil` wherever the
/// decoder would throw or this walk is not sure.
///
/// Its memory is one zeroed block of 32-bit slots, owned by ``withWalk(reader:_:)``:
/// per object its expanded count, its canonical key and the last dictionary that used it as a
/// key, then an open-addressed table of the distinct key strings. Nothing is reference counted.
struct BinaryPropertyListWalk {
    private typealias Format = BinaryPropertyListFormat
    private typealias Marker = BinaryPropertyListReader.Marker

    private let reader: BinaryPropertyListReader
    private let bytes: UnsafeBufferPointer<UInt8>
    /// `bytes`' first byte (a reader's file is never empty).
    private let base: UnsafePointer<UInt8>
    /// Per object: 0 unvisited, -1 in progress (meeting it again is a cycle), else how many
    /// values it expands to.
    private let counts: UnsafeMutablePointer<Int32>
    /// Per object used as a key: 1 + the index of the first key object with the same bytes.
    private let canonicalKeys: UnsafeMutablePointer<Int32>
    /// Per canonical key object: 1 + the index of the dictionary whose keys were last checked
    /// with it (a second use inside the same dictionary is a duplicate key).
    private let lastDictionary: UnsafeMutablePointer<Int32>
    /// Canonical key objects (1 + index; 0 empty), slot chosen by a hash of the key's bytes.
    private let keyTable: UnsafeMutablePointer<Int32>
    private let keyTableMask: Int
    /// Where the references of the last dictionary whose keys passed start, and its count: a
    /// dictionary with the very same key references (the usual case for a table of entries
    /// of one shape) passes without looking at its keys again.
    private let lastKeys: UnsafeMutablePointer<Int32>

    /// Containers nested deeper than this are "not sure" (the decoder allows 512).
    private static let maximumDepth = 64

    /// Runs `body` with a walk over `reader`'s file, its memory freed afterwards.
    static func withWalk<Result>(reader: BinaryPropertyListReader, _ body: (BinaryPropertyListWalk) -> Result?) -> Result? {
        guard let base = reader.bytes.baseAddress else { return nil }
        let objectCount = reader.objectCount
        var tableSize = 16
        while tableSize < 2 * objectCount { tableSize <<= 1 }
        // On the stack when it fits (a few kilobytes for a typical snapshot), else on the heap.
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * objectCount + tableSize + 2) { block in
            guard let storage = block.baseAddress else { return nil }
            storage.initialize(repeating: 0, count: block.count)
            let walk = BinaryPropertyListWalk(
                reader: reader, bytes: reader.bytes, base: base, counts: storage, canonicalKeys: storage + objectCount,
                lastDictionary: storage + 2 * objectCount, keyTable: storage + 3 * objectCount, keyTableMask: tableSize - 1,
                lastKeys: storage + 3 * objectCount + tableSize)
            return body(walk)
        }
    }

    /// How many values object `index` expands to (as the decoder counts them), or `nil` when
    /// the decoder might refuse it. Containers are visited in the decoder's order.
    func expandedCount(of index: Int, depth: Int) -> Int? {
        let known = counts[index]
        if known > 0 { return Int(known) }
        if known < 0 { return nil }  // a cycle
        guard let offset = reader.offset(ofIndex: index) else { return nil }
        let marker = bytes[offset], info = marker & 0x0F
        var total = 1
        switch marker >> 4 {
        case 0x0:
            guard marker == Marker.falseMarker || marker == Marker.trueMarker else { return nil }
        case Marker.integerKind:
            // 16-byte integers (info 4) are "not sure": the decoder keeps only those that fit.
            guard info <= 3, reader.unsigned(at: offset + 1, width: 1 << Int(info)) != nil else { return nil }
        case Marker.realKind:
            guard info == 2 || info == 3, reader.unsigned(at: offset + 1, width: 1 << Int(info)) != nil else { return nil }
        case Marker.dateMarker >> 4:
            guard marker == Marker.dateMarker, reader.unsigned(at: offset + 1, width: 8) != nil else { return nil }
        case Marker.dataKind:
            guard reader.length(at: offset, unitSize: 1) != nil else { return nil }
        case Marker.asciiStringKind:
            guard let (count, start) = reader.length(at: offset, unitSize: 1),
                BinaryPropertyListReader.isASCII(UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]))
            else { return nil }
        case Marker.utf16StringKind:
            guard let (count, start) = reader.length(at: offset, unitSize: 2), isValidUTF16(from: start, count: count) else { return nil }
        case Marker.arrayKind:
            let refSize = reader.objectRefSize
            guard depth < Self.maximumDepth, let (count, start) = reader.length(at: offset, unitSize: refSize) else { return nil }
            counts[index] = -1
            for position in 0..<count {
                guard let child = reference(start, position) else { return nil }
                let known = counts[child]
                guard let childCount = known > 0 ? Int(known) : isLeaf(child) ? 1 : expandedCount(of: child, depth: depth + 1)
                else { return nil }
                total &+= childCount  // both at most the maximum value count
                guard total <= Format.maximumValueCount else { return nil }
            }
        case Marker.dictionaryKind:
            let refSize = reader.objectRefSize
            guard depth < Self.maximumDepth, let (count, keysStart) = reader.length(at: offset, unitSize: 2 * refSize) else { return nil }
            counts[index] = -1
            // The keys first: strings, never containers, so visiting them before the values
            // leaves the decoder's order of containers (and so its depths) unchanged.
            if count == 0 || Int(lastKeys[1]) != count || !sameBytes(Int(lastKeys[0]), keysStart, count &* refSize) {
                let stamp = Int32(index + 1)
                for position in 0..<count {
                    guard let key = reference(keysStart, position) else { return nil }
                    let known = canonicalKeys[key]
                    guard let canonical = known > 0 ? Int(known &- 1) : canonicalKey(key), lastDictionary[canonical] != stamp
                    else { return nil }
                    lastDictionary[canonical] = stamp
                }
                lastKeys[0] = Int32(keysStart)  // inside the file, below its 2^28-byte limit
                lastKeys[1] = Int32(count)
            }
            total += count
            let valuesStart = keysStart &+ count &* refSize  // inside the object table: checked by length(at:unitSize:)
            for position in 0..<count {
                guard let value = reference(valuesStart, position) else { return nil }
                let known = counts[value]  // a shared value already checked: no call
                guard let valueCount = known > 0 ? Int(known) : isLeaf(value) ? 1 : expandedCount(of: value, depth: depth + 1)
                else { return nil }
                total &+= valueCount  // both at most the maximum value count
                guard total <= Format.maximumValueCount else { return nil }
            }
        default:
            return nil  // null, UID, set, unknown markers
        }
        counts[index] = Int32(total)
        return total
    }

    /// Whether object `index` (not yet visited) is a well-formed boolean, 1–8 byte integer,
    /// 4/8-byte real, date or ASCII string, checked here without a call (then marked as
    /// counting 1); `false` for anything else, which ``expandedCount(of:depth:)`` then checks.
    @inline(__always) private func isLeaf(_ index: Int) -> Bool {
        guard let offset = offset(ofReferenced: index) else { return false }
        let marker = bytes[offset], info = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            guard marker == Marker.falseMarker || marker == Marker.trueMarker else { return false }
        case Marker.integerKind:
            guard info <= 3, 1 << Int(info) < reader.objectTableEnd - offset else { return false }
        case Marker.realKind:
            guard info == 2 || info == 3, 1 << Int(info) < reader.objectTableEnd - offset else { return false }
        case Marker.dateMarker >> 4:
            guard marker == Marker.dateMarker, 8 < reader.objectTableEnd - offset else { return false }
        case Marker.asciiStringKind:
            guard let (count, start) = reader.length(at: offset, unitSize: 1),
                BinaryPropertyListReader.isASCII(UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]))
            else { return false }
        default:
            return false
        }
        counts[index] = 1
        return true
    }

    /// The object index stored at reference `position` of the container whose references start
    /// at `start` (``BinaryPropertyListReader/length(at:unitSize:)`` checked that they all lie
    /// in the object table), or `nil` when it is not below the object count.
    @inline(__always) private func reference(_ start: Int, _ position: Int) -> Int? {
        let at = base + start
        let raw: UInt64
        switch reader.objectRefSize {
        case 1: raw = UInt64(at[position])
        case 2: raw = UInt64(at[position &<< 1]) &<< 8 | UInt64(at[position &<< 1 &+ 1])
        default: raw = BinaryPropertyListReader.bigEndian(reader.bytes, at: start &+ position &* reader.objectRefSize, width: reader.objectRefSize)
        }
        guard raw < UInt64(reader.objectCount) else { return nil }
        return Int(raw)
    }

    /// Whether the `count` bytes at `first` and at `second` (both inside the object table) are equal.
    @inline(__always) private func sameBytes(_ first: Int, _ second: Int, _ count: Int) -> Bool {
        let a = UnsafeRawPointer(base + first), b = UnsafeRawPointer(base + second)
        var position = 0
        while position &+ 8 <= count {
            guard a.loadUnaligned(fromByteOffset: position, as: UInt64.self) == b.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            else { return false }
            position &+= 8
        }
        while position < count {
            guard a.load(fromByteOffset: position, as: UInt8.self) == b.load(fromByteOffset: position, as: UInt8.self) else { return false }
            position &+= 1
        }
        return true
    }

    /// Where object `index` (a reference already found below the object count) starts,
    /// checked to lie in the object table.
    @inline(__always) private func offset(ofReferenced index: Int) -> Int? {
        let entry = base + (reader.objectTableEnd &+ index &* reader.offsetIntSize)
        let offset: Int
        switch reader.offsetIntSize {
        case 1: offset = Int(entry[0])
        case 2: offset = Int(entry[0]) &<< 8 | Int(entry[1])
        default: return reader.offset(ofIndex: index)
        }
        guard offset >= Marker.headerSize, offset < reader.objectTableEnd else { return nil }
        return offset
    }

    /// The index of the first key object with the same bytes as key object `index`, or `nil`
    /// if `index` is not an ASCII string (the decoder would refuse it, or this walk is not sure).
    /// Distinct ASCII byte strings are distinct Swift strings, so equal canonical keys are
    /// exactly the keys the decoder finds equal.
    private func canonicalKey(_ index: Int) -> Int? {
        let known = canonicalKeys[index]
        if known > 0 { return Int(known - 1) }
        guard let keyBytes = reader.asciiBytes(BinaryPropertyListReader.Object(index: index)) else { return nil }
        var slot = Self.hash(keyBytes) & keyTableMask
        while true {
            let occupant = keyTable[slot]
            if occupant == 0 {
                keyTable[slot] = Int32(index + 1)
                canonicalKeys[index] = Int32(index + 1)
                return index
            }
            let other = Int(occupant - 1)
            if let otherBytes = reader.asciiBytes(BinaryPropertyListReader.Object(index: other)),
                otherBytes.count == keyBytes.count, otherBytes.elementsEqual(keyBytes)
            {
                canonicalKeys[index] = occupant
                return other
            }
            slot = (slot + 1) & keyTableMask
        }
    }

    /// FNV-1a over the key's bytes.
    private static func hash(_ keyBytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in keyBytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ hash >> 29)
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
}
