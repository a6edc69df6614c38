/// The layout of a binary property list (`bplist00`), as CoreFoundation and Python's `plistlib`
/// write it, and the limits our decoder enforces on top of it.
///
/// A file is: the 8-byte magic `bplist00`; the object table (each object a marker byte whose high
/// nibble is the kind and low nibble a length or size, then its payload); the offset table (one
/// big-endian offset per object, `offsetIntSize` bytes each); and a 32-byte trailer (6 unused
/// bytes, `offsetIntSize`, `objectRefSize`, then three big-endian 64-bit fields: number of
/// objects, index of the top object, offset of the offset table). Containers hold object
/// references (indexes into the offset table, `objectRefSize` bytes each), not objects.
enum BinaryPropertyListFormat {
    static let magic: [UInt8] = Array("bplist00".utf8)
    static let headerSize = 8
    static let trailerSize = 32

    /// Marker bytes (`0x08`, `0x09`) and kinds (the high nibble of a marker).
    static let falseMarker: UInt8 = 0x08
    static let trueMarker: UInt8 = 0x09
    static let integerKind: UInt8 = 0x1
    static let realKind: UInt8 = 0x2
    static let dateMarker: UInt8 = 0x33
    static let dataKind: UInt8 = 0x4
    static let asciiStringKind: UInt8 = 0x5
    static let utf16StringKind: UInt8 = 0x6
    static let arrayKind: UInt8 = 0xA
    static let dictionaryKind: UInt8 = 0xD
    /// A low nibble of `0xF` means the length follows as an integer object.
    static let lengthFollows: UInt8 = 0xF

    /// Containers nested deeper than this are refused (decoding recurses once per level).
    static let maximumDepth = 512
    /// At most this many values once shared references are expanded: a small file whose
    /// containers reference the same child many times cannot stand for an exponentially
    /// large tree that a later walk (comparison, hashing, printing) would never finish.
    static let maximumValueCount = 1 << 20
    /// At most this many bytes of input (far above any snapshot; `SharedDefaults` has its own cap).
    static let maximumInputSize = 1 << 28

    /// The number of bytes (1, 2, 4 or 8) a big-endian unsigned integer needs to hold `value`.
    static func byteWidth(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }
}
