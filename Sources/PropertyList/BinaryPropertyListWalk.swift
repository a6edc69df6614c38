/// The one place that decides whether a binary property list (`bplist00`) is acceptable: a walk
/// over every object reachable from the root that checks each as it goes and throws at the
/// first problem. What it accepts is handed on as an ``AcceptedBinaryPropertyList``, from which
/// both the ``PropertyListValue`` tree (``BinaryPropertyListDecoder``) and typed readers (the
/// entitlement snapshot) are read without checking again.
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
/// Objects are visited depth first, each dictionary's key before its value, so the error
/// reported for a file with several problems is the first one in that order. Each object is
/// checked once and then counted per use. Memory is one zeroed block of 32-bit slots, owned by
/// ``accept(_:_:)``: per object its expanded count, its canonical key and the last dictionary
/// that used it as a key, then an open-addressed table of the distinct ASCII key strings.
struct BinaryPropertyListWalk {
    private typealias Format = BinaryPropertyListFormat

    private let file: AcceptedBinaryPropertyList
    private let bytes: UnsafeBufferPointer<UInt8>
    private let trailer: BinaryPropertyListTrailer
    /// Objects lie in `headerSize..<objectTableEnd`.
    private let objectTableEnd: Int
    /// Per object: 0 unvisited, -1 while its container is being walked (meeting it again then
    /// means a cycle), else how many values it expands to (itself and everything under it,
    /// shared parts counted once per use).
    private let counts: UnsafeMutablePointer<Int32>
    /// Per ASCII string used as a key: 1 + the index of the first key object with the same bytes.
    private let canonicalKeys: UnsafeMutablePointer<Int32>
    /// Per canonical key object: 1 + the index of the dictionary whose keys last used it (a
    /// second use inside the same dictionary is a duplicate key).
    private let lastDictionary: UnsafeMutablePointer<Int32>
    /// Canonical key objects (1 + index; 0 empty), slot chosen by a hash of the key's bytes.
    private let keyTable: UnsafeMutablePointer<Int32>
    private let keyTableMask: Int
    /// Where the key references of the last dictionary whose keys all passed start, and their
    /// count: a dictionary with the very same key references (the usual case for a table of
    /// entries of one shape) has keys already known to be distinct strings.
    private let lastKeys: UnsafeMutablePointer<Int32>

    /// Checks `bytes` and runs `body` with the accepted file, which is valid only inside `body`.
    ///
    /// - Throws: ``PropertyListError`` as described on the type; never traps on any input.
    static func accept<Result>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (AcceptedBinaryPropertyList) -> Result) throws(PropertyListError) -> Result {
        guard bytes.count >= Format.magic.count, bytes.prefix(6).elementsEqual(Format.magic.prefix(6)) else {
            throw .malformed(reason: "missing the bplist00 magic")
        }
        guard bytes.prefix(8).elementsEqual(Format.magic) else {
            throw .malformed(reason: "unsupported binary property list version '\(String(decoding: bytes[6..<8], as: UTF8.self).debugDescription)'")
        }
        guard bytes.count <= Format.maximumInputSize else {
            throw .malformed(reason: "binary property list of \(bytes.count) bytes exceeds the \(Format.maximumInputSize)-byte limit")
        }
        let trailer = try BinaryPropertyListTrailer(bytes)
        guard let base = bytes.baseAddress else { throw .malformed(reason: "missing the bplist00 magic") }  // not empty: checked above
        let objectCount = trailer.objectCount
        var tableSize = 16
        while tableSize < 2 * objectCount { tableSize <<= 1 }
        let file = AcceptedBinaryPropertyList(base: base, trailer: trailer)
        // On the stack when it fits (a few kilobytes for a typical snapshot), else on the heap.
        // The walk's memory is only for the walk: `body` runs after it, on the file (which
        // reads `bytes` alone), so the allocation's closure is not generic over `Result` (a
        // generic one asks the runtime for `Swift.Result`'s metadata on every call).
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * objectCount + tableSize + 2) {
            block throws(PropertyListError) in
            guard let storage = block.baseAddress else { throw .malformed(reason: "no memory for the walk") }
            storage.initialize(repeating: 0, count: block.count)
            let walk = BinaryPropertyListWalk(
                file: file, bytes: bytes, trailer: trailer,
                objectTableEnd: trailer.offsetTableOffset, counts: storage, canonicalKeys: storage + objectCount,
                lastDictionary: storage + 2 * objectCount, keyTable: storage + 3 * objectCount, keyTableMask: tableSize - 1,
                lastKeys: storage + 3 * objectCount + tableSize)
            _ = try walk.count(of: trailer.topObject, depth: 0)
        }
        return body(file)
    }

    // MARK: Objects

    /// How many values object `index` expands to, checking it (and everything under it) on
    /// its first use. `depth` is the nesting of the container that references it (0 for the
    /// root). Inlined where containers meet their children, so a shared or scalar child costs
    /// no call; a container is walked out of line.
    @inline(__always) private func count(of index: Int, depth: Int) throws(PropertyListError) -> Int {
        let known = counts[index]
        if known > 0 { return Int(known) }
        if known < 0 { throw cycle(index) }
        let offset = try offset(ofObject: index)
        let marker = bytes[offset]
        let total: Int
        switch marker >> 4 {
        case Format.arrayKind, Format.dictionaryKind: total = try container(index, at: offset, depth: depth)
        default:
            try checkScalar(index, at: offset)
            total = 1
        }
        counts[index] = Int32(total)
        return total
    }

    /// Checks the scalar (not a container) object `index` whose marker is at `offset`.
    @inline(__always) private func checkScalar(_ index: Int, at offset: Int) throws(PropertyListError) {
        let marker = bytes[offset]
        let info = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case Format.falseMarker, Format.trueMarker: break
            default: throw unsupportedMarker(marker, index: index)
            }
        case Format.integerKind:
            guard info <= 3 else { return try checkWideInteger(index, at: offset) }
            try fits(at: offset &+ 1, width: 1 &<< Int(info), index: index)
        case Format.realKind:
            guard info == 2 || info == 3 else { throw invalidSize("real", index: index, info: info) }
            try fits(at: offset &+ 1, width: 1 &<< Int(info), index: index)
        case Format.dateMarker >> 4:
            guard marker == Format.dateMarker else { throw unknownMarker(marker, index: index) }
            try fits(at: offset &+ 1, width: 8, index: index)
        case Format.dataKind:
            _ = try length(info: info, at: offset, index: index, unitSize: 1)
        case Format.asciiStringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 1)
            guard RawBytes.isASCII(file.bytes + start, count: count) else { throw notASCII(index) }
        case Format.utf16StringKind:
            let (count, start) = try length(info: info, at: offset, index: index, unitSize: 2)
            guard BinaryPropertyListUTF16.isValid(file.bytes + start, count: count) else { throw unpairedSurrogate(index) }
        default:
            throw unsupportedMarker(marker, index: index)
        }
    }

    /// Checks the integer object `index` at `offset` whose size code is above 3: 16 bytes are
    /// kept only when the value fits in Int64, as Apple's reader does; other codes are invalid.
    @inline(never) private func checkWideInteger(_ index: Int, at offset: Int) throws(PropertyListError) {
        let info = bytes[offset] & 0x0F
        guard info == 4 else { throw invalidSize("integer", index: index, info: info) }
        try fits(at: offset + 1, width: 8, index: index)
        try fits(at: offset + 9, width: 8, index: index)
        let high = Int64(bitPattern: file.bigEndian(at: offset + 1, width: 8))
        let low = Int64(bitPattern: file.bigEndian(at: offset + 9, width: 8))
        guard high == low >> 63 else { throw .unsupportedValue(path: "", type: "integer outside the 64-bit range") }
    }

    /// Walks the array or dictionary object `index` at `offset`; marks it in progress meanwhile.
    @inline(never) private func container(_ index: Int, at offset: Int, depth: Int) throws(PropertyListError) -> Int {
        counts[index] = -1
        let marker = bytes[offset]
        if marker >> 4 == Format.arrayKind { return try array(info: marker & 0x0F, at: offset, index: index, depth: depth + 1) }
        return try dictionary(info: marker & 0x0F, at: offset, index: index, depth: depth + 1)
    }

    @inline(never) private func array(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, start) = try length(info: info, at: offset, index: index, unitSize: refSize)
        var total = 1
        for position in 0..<count {
            let child = try reference(at: start &+ position &* refSize, from: index)
            let childCount: Int
            do { childCount = try self.count(of: child, depth: depth) } catch { throw error.nested(under: .index(position)) }
            total &+= childCount  // both at most the maximum value count
            guard total <= Format.maximumValueCount else { throw tooManyValues() }
        }
        return total
    }

    /// Inlined into ``container(_:at:depth:)``: a dictionary with the last one's keys (an entry of
    /// a table) is walked without a further call; any other goes through ``keysAndValues``.
    @inline(__always) private func dictionary(info: UInt8, at offset: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        guard depth <= Format.maximumDepth else { throw tooDeep() }
        let refSize = trailer.objectRefSize
        let (count, keysStart) = try length(info: info, at: offset, index: index, unitSize: 2 * refSize)
        let valuesStart = keysStart &+ count &* refSize
        let keysKnown = count > 0 && Int(lastKeys[1]) == count && RawBytes.equal(file.bytes + Int(lastKeys[0]), file.bytes + keysStart, count: count &* refSize)
        if keysKnown { return try values(count: count, keysStart: keysStart, valuesStart: valuesStart, index: index, depth: depth) }
        return try keysAndValues(count: count, keysStart: keysStart, valuesStart: valuesStart, index: index, depth: depth)
    }

    /// The rest of ``dictionary(info:at:index:depth:)`` for a dictionary whose keys are not known
    /// yet: each key checked (a string, distinct from the others) before its value is walked.
    @inline(never) private func keysAndValues(count: Int, keysStart: Int, valuesStart: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        let refSize = trailer.objectRefSize
        // Which key repeats an earlier one is settled before any value is walked: a dictionary
        // under one of the values may use the same key strings.
        let repeated = firstRepeatedKey(count: count, keysStart: keysStart, index: index)
        var total = 1
        for position in 0..<count {
            let keyObject = try reference(at: keysStart &+ position &* refSize, from: index)
            let valueObject = try reference(at: valuesStart &+ position &* refSize, from: index)
            total &+= try self.count(of: keyObject, depth: depth)
            let keyOffset = file.offset(of: .init(index: keyObject))
            let keyMarker = bytes[keyOffset] >> 4
            guard keyMarker == Format.asciiStringKind || keyMarker == Format.utf16StringKind else {
                throw .unsupportedValue(path: "", type: "dictionary key \(kindDescription(ofObject: keyObject))")
            }
            let valueCount: Int
            do { valueCount = try self.count(of: valueObject, depth: depth) } catch {
                throw error.nested(under: .key(file.string(.init(index: keyObject)) ?? ""))
            }
            total &+= valueCount
            guard total <= Format.maximumValueCount else { throw tooManyValues() }
            if position == repeated {
                let name = file.string(.init(index: keyObject)) ?? ""
                throw .malformed(reason: "dictionary (object \(index)) has the key \(name.quotedForMessage) twice")
            }
        }
        if count > 0 {
            lastKeys[0] = Int32(keysStart)  // inside the file, below its 2^28-byte limit
            lastKeys[1] = Int32(count)
        }
        return total
    }

    /// The position of the first key of dictionary `index` that equals an earlier one (as Swift
    /// strings), looking no further than the first key the walk would refuse (out of range, not
    /// a string, or a malformed string), or `nil`. Throws nothing: the walk refuses what it
    /// must at the position where it meets it.
    ///
    /// ASCII keys in strictly ascending byte order (as writers that sort their keys store them)
    /// are distinct with one comparison each; from the first key out of that order on, each
    /// goes through the key table (and from the first UTF-16 key on, through Swift strings).
    private func firstRepeatedKey(count: Int, keysStart: Int, index: Int) -> Int? {
        let refSize = trailer.objectRefSize
        var keyStrings: Set<String>?
        var ascending = true
        var previous = (count: 0, start: 0)
        for position in 0..<count {
            guard let key = try? reference(at: keysStart &+ position &* refSize, from: index),
                let offset = try? offset(ofObject: key)
            else { return nil }
            let marker = bytes[offset] >> 4
            // Only a string is checked here (a container key is refused before it is walked).
            guard marker == Format.asciiStringKind || marker == Format.utf16StringKind, (try? self.count(of: key, depth: 0)) != nil else {
                return nil
            }
            if ascending {
                if marker == Format.asciiStringKind {
                    let key = file.length(at: offset)
                    if position == 0 || precedes(previous, key) {
                        previous = key
                        continue
                    }
                }
                // Out of order: the keys before (all ASCII, all distinct) into the key table.
                ascending = false
                for before in 0..<position {
                    let earlier = file.reference(at: keysStart &+ before &* refSize).index
                    _ = isFirstUse(
                        ofKey: earlier, at: file.offset(of: .init(index: earlier)), position: before, keysStart: keysStart, dictionary: index,
                        strings: &keyStrings)
                }
            }
            if !isFirstUse(ofKey: key, at: offset, position: position, keysStart: keysStart, dictionary: index, strings: &keyStrings) {
                return position
            }
        }
        return nil
    }

    /// The rest of ``dictionary(info:at:index:depth:)`` for a dictionary whose key references
    /// are byte for byte those of the last dictionary whose keys all passed: its keys are known
    /// to be in range, strings and distinct (each counts 1), so only the values are walked, in
    /// the same order and with the same checks as the general loop.
    @inline(__always) private func values(count: Int, keysStart: Int, valuesStart: Int, index: Int, depth: Int) throws(PropertyListError) -> Int {
        let objectCount = trailer.objectCount, counts = self.counts
        var total = 1
        // Per value: in range, then its count if already known (a shared or already walked
        // object), else walked now; the same checks in the same order as the general loop.
        switch trailer.objectRefSize {  // the common widths without a switch per reference
        case 1:
            for position in 0..<count {
                let child = Int(bytes[valuesStart &+ position])
                guard child < objectCount else { throw outOfRange(UInt64(child), from: index) }
                let known = Int(counts[child])
                total &+= 1 &+ (known > 0 ? known : try firstUse(of: child, position: position, keysStart: keysStart, depth: depth))
                guard total <= Format.maximumValueCount else { throw tooManyValues() }
            }
        case 2:
            for position in 0..<count {
                let at = valuesStart &+ position &* 2
                let child = Int(bytes[at]) &<< 8 | Int(bytes[at &+ 1])
                guard child < objectCount else { throw outOfRange(UInt64(child), from: index) }
                let known = Int(counts[child])
                total &+= 1 &+ (known > 0 ? known : try firstUse(of: child, position: position, keysStart: keysStart, depth: depth))
                guard total <= Format.maximumValueCount else { throw tooManyValues() }
            }
        default:
            for position in 0..<count {
                let child = try reference(at: valuesStart &+ position &* trailer.objectRefSize, from: index)
                total &+= 1 &+ (try firstUse(of: child, position: position, keysStart: keysStart, depth: depth))
                guard total <= Format.maximumValueCount else { throw tooManyValues() }
            }
        }
        return total
    }

    /// How many values the value object `child` (in range) at `position` of a dictionary
    /// expands to, walked if this is its first use; an error names the key it is under.
    @inline(never) private func firstUse(of child: Int, position: Int, keysStart: Int, depth: Int) throws(PropertyListError) -> Int {
        do { return try self.count(of: child, depth: depth) } catch {
            let key = file.reference(at: keysStart &+ position &* trailer.objectRefSize)
            throw error.nested(under: .key(file.string(key) ?? ""))
        }
    }

    /// Whether the bytes at `first.start` come strictly before those at `second.start` in byte
    /// order (a proper prefix first), both inside the object table. Eight bytes at a time, the
    /// last read reaching past the shorter run's end: the object table is followed by the
    /// 32-byte trailer, so eight bytes from any position in it are inside the file.
    @inline(__always) private func precedes(_ first: (count: Int, start: Int), _ second: (count: Int, start: Int)) -> Bool {
        let common = min(first.count, second.count)
        let left = UnsafeRawPointer(file.bytes + first.start), right = UnsafeRawPointer(file.bytes + second.start)
        var position = 0
        while true {
            var one = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            var other = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let remaining = common &- position
            if remaining < 8 {
                let mask = UInt64.max << (UInt64(8 &- remaining) &* 8)  // the bytes both runs have (none when 0)
                one &= mask
                other &= mask
                return one != other ? one < other : first.count < second.count
            }
            if one != other { return one < other }
            position &+= 8
        }
    }

    /// Whether no earlier key of dictionary `dictionary` equals the key object `key` (a string,
    /// already checked, whose marker is at `offset`) at `position`.
    private func isFirstUse(
        ofKey key: Int, at offset: Int, position: Int, keysStart: Int, dictionary: Int, strings: inout Set<String>?
    ) -> Bool {
        let object = AcceptedBinaryPropertyList.Object(index: key)
        if strings == nil {
            if let canonical = canonicalKey(key, at: offset) {
                let stamp = Int32(dictionary + 1)
                guard lastDictionary[canonical] != stamp else { return false }
                lastDictionary[canonical] = stamp
                return true
            }
            // The first UTF-16 key: the keys before it (all ASCII, all distinct) as strings.
            var earlier = Set<String>(minimumCapacity: position + 1)
            for before in 0..<position {
                let earlierKey = file.reference(at: keysStart &+ before &* trailer.objectRefSize)
                earlier.insert(file.string(earlierKey) ?? "")
            }
            strings = earlier
        }
        return strings!.insert(file.string(object) ?? "").inserted
    }

    /// The index of the first key object with the same bytes as the ASCII string `index` (whose
    /// marker is at `offset`), or `nil` when `index` is a UTF-16 string. Distinct ASCII byte
    /// strings are distinct Swift strings, so equal canonical keys are exactly the keys that are
    /// equal strings.
    private func canonicalKey(_ index: Int, at offset: Int) -> Int? {
        let known = canonicalKeys[index]
        if known > 0 { return Int(known - 1) }
        guard bytes[offset] >> 4 == Format.asciiStringKind else { return nil }
        let (count, start) = file.length(at: offset)
        let keyBytes = UnsafeBufferPointer(start: file.bytes + start, count: count)
        var slot = RawBytes.hash(keyBytes) & keyTableMask
        while true {
            let occupant = keyTable[slot]
            if occupant == 0 {
                keyTable[slot] = Int32(index + 1)
                canonicalKeys[index] = Int32(index + 1)
                return index
            }
            let other = Int(occupant - 1)
            if let otherBytes = file.asciiBytes(.init(index: other)), otherBytes.count == keyBytes.count,
                RawBytes.equal(otherBytes.baseAddress!, keyBytes.baseAddress!, count: keyBytes.count)
            {
                canonicalKeys[index] = occupant
                return other
            }
            slot = (slot + 1) & keyTableMask
        }
    }

    /// What object `index` (already checked) is, in the words of an error message.
    private func kindDescription(ofObject index: Int) -> String {
        let marker = bytes[file.offset(of: .init(index: index))]
        switch marker >> 4 {
        case 0x0: return "boolean"
        case Format.integerKind: return "integer"
        case Format.realKind: return "real"
        case Format.dateMarker >> 4: return "date"
        case Format.dataKind: return "data"
        case Format.asciiStringKind, Format.utf16StringKind: return "string"
        case Format.arrayKind: return "array"
        default: return "dictionary"
        }
    }

    // MARK: Layout

    /// Where object `index` starts, checked to lie in the object table.
    @inline(__always) private func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        let entry = trailer.offsetTableOffset &+ index &* trailer.offsetIntSize
        let offset: UInt64
        switch trailer.offsetIntSize {  // the common widths without the loop
        case 1: offset = UInt64(bytes[entry])
        case 2: offset = UInt64(bytes[entry]) << 8 | UInt64(bytes[entry &+ 1])
        default: offset = file.bigEndian(at: entry, width: trailer.offsetIntSize)
        }
        guard offset >= UInt64(Format.headerSize), offset < UInt64(objectTableEnd) else { throw outsideTheObjectTable(index, offset) }
        return Int(offset)
    }

    /// The object reference at `position` inside container `container` (whose references
    /// ``length(info:at:index:unitSize:)`` found inside the object table), checked to be in range.
    @inline(__always) private func reference(at position: Int, from container: Int) throws(PropertyListError) -> Int {
        let reference: UInt64
        switch trailer.objectRefSize {  // the common widths without the loop
        case 1: reference = UInt64(bytes[position])
        case 2: reference = UInt64(bytes[position]) << 8 | UInt64(bytes[position &+ 1])
        default: reference = file.bigEndian(at: position, width: trailer.objectRefSize)
        }
        guard reference < UInt64(trailer.objectCount) else { throw outOfRange(reference, from: container) }
        return Int(reference)
    }

    /// The element count of the object whose marker is at `offset` (the low nibble, or an
    /// integer object after it when the nibble is 0xF) and where its payload starts; checked
    /// so that `count * unitSize` payload bytes fit before the end of the object table.
    @inline(__always) private func length(info: UInt8, at offset: Int, index: Int, unitSize: Int) throws(PropertyListError) -> (count: Int, start: Int) {
        var count = Int(info)
        var start = offset + 1
        if info == Format.lengthFollows {
            guard start < objectTableEnd, bytes[start] >> 4 == Format.integerKind, bytes[start] & 0x0F <= 3 else { throw badLength(index) }
            let width = 1 << Int(bytes[start] & 0x0F)
            try fits(at: start + 1, width: width, index: index)
            let value = file.bigEndian(at: start + 1, width: width)
            start += 1 + width
            guard value <= UInt64(objectTableEnd) else { throw pastTheEnd(index) }
            count = Int(value)
        }
        // No overflow: `count` is at most the object table's end (below 2^28) and `unitSize` at
        // most 16; and a multiplication, not a division, on this per-object path.
        guard count &* unitSize <= objectTableEnd &- start else { throw pastTheEnd(index) }
        return (count, start)
    }

    /// Checks that `width` bytes at `position` lie in the object table.
    @inline(__always) private func fits(at position: Int, width: Int, index: Int) throws(PropertyListError) {
        guard width <= objectTableEnd - position else { throw pastTheEnd(index) }
    }

    // MARK: Errors (out of line: the checks above stay small enough to inline)

    @inline(never) private func outsideTheObjectTable(_ index: Int, _ offset: UInt64) -> PropertyListError {
        .malformed(reason: "object \(index) has offset \(offset) outside the object table \(Format.headerSize)..<\(objectTableEnd)")
    }

    @inline(never) private func outOfRange(_ reference: UInt64, from container: Int) -> PropertyListError {
        .malformed(reason: "object \(container) references object \(reference) but there are only \(trailer.objectCount)")
    }

    @inline(never) private func badLength(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) has a length that is not an integer of 1, 2, 4 or 8 bytes")
    }

    @inline(never) private func cycle(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) contains itself (a reference cycle)")
    }

    @inline(never) private func invalidSize(_ kind: String, index: Int, info: UInt8) -> PropertyListError {
        .malformed(reason: "\(kind) (object \(index)) has an invalid size code \(info)")
    }

    @inline(never) private func notASCII(_ index: Int) -> PropertyListError {
        .malformed(reason: "ASCII string (object \(index)) contains a byte above 0x7F")
    }

    @inline(never) private func unpairedSurrogate(_ index: Int) -> PropertyListError {
        .malformed(reason: "UTF-16 string (object \(index)) has an unpaired surrogate")
    }

    /// The error for a marker that is not a scalar this codec reads: null, UIDs and sets are
    /// well formed but have no ``PropertyListValue`` case; anything else is unknown.
    @inline(never) private func unsupportedMarker(_ marker: UInt8, index: Int) -> PropertyListError {
        switch marker >> 4 {
        case 0x0 where marker == 0x00: .unsupportedValue(path: "", type: "null")
        case 0x8: .unsupportedValue(path: "", type: "UID")
        case 0xB, 0xC: .unsupportedValue(path: "", type: "set")
        default: unknownMarker(marker, index: index)
        }
    }

    @inline(never) private func pastTheEnd(_ index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) runs past the end of the object table")
    }

    @inline(never) private func unknownMarker(_ marker: UInt8, index: Int) -> PropertyListError {
        .malformed(reason: "object \(index) has an unknown marker 0x\(String(marker, radix: 16, uppercase: true))")
    }

    @inline(never) private func tooDeep() -> PropertyListError {
        .malformed(reason: "containers nest deeper than \(Format.maximumDepth) levels")
    }

    @inline(never) private func tooManyValues() -> PropertyListError {
        .malformed(reason: "more than \(Format.maximumValueCount) values once shared references are expanded")
    }
}
