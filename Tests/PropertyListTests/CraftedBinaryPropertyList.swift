/// A hand-built `bplist00` file: objects given as raw bytes, then a computed offset table and
/// trailer whose every field can be overridden to make it inconsistent.
struct CraftedBinaryPropertyList {
    var magic: [UInt8] = Array("bplist00".utf8)
    var objects: [[UInt8]]
    var offsetIntSize: UInt8 = 1
    var objectRefSize: UInt8 = 1
    var objectCount: UInt64?
    var topObject: UInt64 = 0
    var offsetTableOffset: UInt64?
    /// Replaces the computed offsets (one per object unless overridden further).
    var offsets: [UInt64]?

    var bytes: [UInt8] {
        var bytes = magic
        var computed: [UInt64] = []
        for object in objects {
            computed.append(UInt64(bytes.count))
            bytes += object
        }
        let tableOffset = UInt64(bytes.count)
        for offset in offsets ?? computed { bytes += bigEndian(offset, width: Int(offsetIntSize)) }
        bytes += [0, 0, 0, 0, 0, 0, offsetIntSize, objectRefSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        bytes += bigEndian(topObject, width: 8)
        bytes += bigEndian(offsetTableOffset ?? tableOffset, width: 8)
        return bytes
    }
}

/// `value` as `width` big-endian bytes (the low bytes when `width` is under 8).
func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}
