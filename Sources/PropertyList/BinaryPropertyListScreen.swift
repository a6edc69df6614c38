/// A look at a `bplist00` file's trailer and object markers before Foundation parses it.
///
/// Foundation on Linux crashes (a null dereference while bridging `NSSet` to `Set<AnyHashable>`)
/// on a binary property list holding a *set* object, a type property lists written by Apple
/// tools never contain; fuzzing the shared-file reader found it. So a set (marker `0xC_`) or a
/// keyed-archiver UID (`0x8_`) is refused here, as is a trailer whose offset table does not fit
/// in the file (CoreFoundation refuses those too; checking first keeps this scan in bounds).
enum BinaryPropertyListScreen {
    /// CoreFoundation takes any `bplist` prefix as binary, whatever the two version bytes
    /// (fuzzing found `bplist0z` crashing the same way), so the screen does too.
    static let prefix = Array("bplist".utf8)
    static let magic = Array("bplist00".utf8)

    /// Throws when `bytes` is a binary property list with a malformed trailer or an object type
    /// outside the property-list types; returns quietly for anything else (including XML).
    static func check(_ bytes: [UInt8]) throws(PropertyListError) {
        guard bytes.count >= prefix.count, Array(bytes[0..<prefix.count]) == prefix else { return }
        let trailerSize = 32
        guard bytes.count >= magic.count + 1 + trailerSize else { throw .malformed(reason: "binary property list shorter than its trailer") }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        let objectCount = bigEndian(bytes, at: trailer + 8, size: 8)
        let topObject = bigEndian(bytes, at: trailer + 16, size: 8)
        let tableOffset = bigEndian(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1, topObject < objectCount,
              tableOffset >= UInt64(magic.count + 1), tableOffset < UInt64(trailer)
        else { throw .malformed(reason: "binary property list trailer is invalid") }
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
        guard !overflow, tableSize <= UInt64(trailer) - tableOffset else {
            throw .malformed(reason: "binary property list offset table does not fit in the file")
        }
        let table = Int(tableOffset)
        for index in 0..<Int(objectCount) {
            let offset = bigEndian(bytes, at: table + index * offsetSize, size: offsetSize)
            guard offset >= UInt64(magic.count), offset < tableOffset else {
                throw .malformed(reason: "binary property list object \(index) lies outside the object area")
            }
            switch bytes[Int(offset)] >> 4 {
            case 0x8: throw .malformed(reason: "binary property list holds a keyed-archiver UID, not a property-list type")
            case 0xC: throw .malformed(reason: "binary property list holds a set, not a property-list type")
            default: continue
            }
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[start..<start + size] { value = value << 8 | UInt64(byte) }
        return value
    }
}
