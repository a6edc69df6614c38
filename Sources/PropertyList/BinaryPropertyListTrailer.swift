/// The last 32 bytes of a `bplist00` file, read and checked against the file's size.
///
/// After ``init(_:)`` succeeds every offset-table entry lies inside the file, every object
/// reference width can address every object, and no size computation can overflow.
struct BinaryPropertyListTrailer {
    /// Bytes per offset-table entry, 1...8.
    let offsetIntSize: Int
    /// Bytes per object reference inside arrays and dictionaries, 1...8.
    let objectRefSize: Int
    /// Number of entries in the offset table, at least 1.
    let objectCount: Int
    /// Index of the root object, below ``objectCount``.
    let topObject: Int
    /// Where the offset table starts; objects lie in `headerSize..<offsetTableOffset`.
    let offsetTableOffset: Int

    /// Reads and validates the trailer of `bytes`, which start with the magic.
    ///
    /// - Throws: ``PropertyListError/malformed(reason:)`` naming the inconsistent field.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(PropertyListError) {
        typealias Format = BinaryPropertyListFormat
        let size = bytes.count
        guard size >= Format.headerSize + 1 + Format.trailerSize else {
            throw .malformed(reason: "binary property list of \(size) bytes is too short to hold an object and a trailer")
        }
        let start = size - Format.trailerSize
        offsetIntSize = Int(bytes[start + 6])
        objectRefSize = Int(bytes[start + 7])
        let objectCount = Self.uint64(bytes, at: start + 8)
        let topObject = Self.uint64(bytes, at: start + 16)
        let offsetTableOffset = Self.uint64(bytes, at: start + 24)

        guard (1...8).contains(offsetIntSize) else { throw .malformed(reason: "trailer offset size \(offsetIntSize) is not 1...8") }
        guard (1...8).contains(objectRefSize) else { throw .malformed(reason: "trailer object reference size \(objectRefSize) is not 1...8") }
        guard objectCount >= 1, objectCount <= UInt64(Format.maximumValueCount) else {
            throw .malformed(reason: "trailer object count \(objectCount) is not 1...\(Format.maximumValueCount)")
        }
        guard topObject < objectCount else {
            throw .malformed(reason: "trailer top object \(topObject) is not below the object count \(objectCount)")
        }
        // The offset table must start after the header and at least one object, and end before
        // the trailer. `objectCount` is small (checked above), so the product cannot overflow,
        // but say so with the overflow-reporting arithmetic rather than rely on it.
        let (tableSize, productOverflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetIntSize))
        let (tableEnd, sumOverflow) = offsetTableOffset.addingReportingOverflow(tableSize)
        guard offsetTableOffset >= UInt64(Format.headerSize + 1), !productOverflow, !sumOverflow, tableEnd <= UInt64(start) else {
            throw .malformed(reason: "offset table at \(offsetTableOffset) with \(objectCount) entries of \(offsetIntSize) bytes lies outside the file of \(size) bytes")
        }
        // Every reference must be able to name every object, and every offset every object start.
        guard objectRefSize == 8 || objectCount - 1 < UInt64(1) << (8 * UInt64(objectRefSize)) else {
            throw .malformed(reason: "object reference size \(objectRefSize) cannot address \(objectCount) objects")
        }
        self.objectCount = Int(objectCount)
        self.topObject = Int(topObject)
        self.offsetTableOffset = Int(offsetTableOffset)
    }

    /// The big-endian unsigned integer of `width` bytes at `offset`; the caller checked the range.
    @inline(__always)
    static func unsigned(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, width: Int) -> UInt64 {
        var result: UInt64 = 0
        for index in offset..<(offset + width) {
            result = result << 8 | UInt64(bytes[index])
        }
        return result
    }

    private static func uint64(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        unsigned(bytes, at: offset, width: 8)
    }
}
