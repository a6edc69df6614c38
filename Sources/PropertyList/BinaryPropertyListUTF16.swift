/// The big-endian UTF-16 strings of a binary property list: checked for unpaired surrogates
/// (refused: Foundation would keep them, a Swift `String` cannot hold them faithfully) and
/// transcoded to `String`.
enum BinaryPropertyListUTF16 {
    /// Whether the `count` big-endian UTF-16 units at `start` pair every surrogate.
    static func isValid(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        var position = 0
        let end = 2 * count
        while position < end {
            let unit = UInt16(start[position]) << 8 | UInt16(start[position + 1])
            position += 2
            guard unit & 0xF800 == 0xD800 else { continue }
            guard unit < 0xDC00, position < end else { return false }
            let low = UInt16(start[position]) << 8 | UInt16(start[position + 1])
            guard low & 0xFC00 == 0xDC00 else { return false }
            position += 2
        }
        return true
    }

    /// The `count` big-endian UTF-16 units at `start` as a `String`. The units were checked
    /// by ``isValid(_:count:)``; a stray surrogate would become U+FFFD, never a trap.
    static func string(_ start: UnsafePointer<UInt8>, count: Int) -> String {
        // One UTF-16 unit needs at most 3 UTF-8 bytes; a surrogate pair (two units) needs 4.
        String(unsafeUninitializedCapacity: count * 3) { output in
            var written = 0
            var position = 0
            let end = 2 * count
            func emit(_ byte: UInt32) {
                output[written] = UInt8(truncatingIfNeeded: byte)
                written += 1
            }
            while position < end {
                let unit = UInt32(start[position]) << 8 | UInt32(start[position + 1])
                position += 2
                var scalar = unit
                if unit & 0xF800 == 0xD800 {
                    let low = position < end ? UInt32(start[position]) << 8 | UInt32(start[position + 1]) : 0
                    if unit < 0xDC00, low & 0xFC00 == 0xDC00 {
                        position += 2
                        scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalar = 0xFFFD
                    }
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
    }
}
