/// Byte-run helpers for the binary codec, on the standard library alone (no `memcmp`), so the
/// module builds wherever Swift does. `public` with `package` members so that ``equal(_:_:count:)``
/// is inlined into other modules (see ``AcceptedBinaryPropertyList``).
public enum RawBytes {
    /// Whether the `count` bytes at `first` and at `second` are equal, eight at a time (inlined
    /// into typed readers in other modules too, where a generic comparison costs several times more).
    @inlinable @inline(__always)
    package static func equal(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, count: Int) -> Bool {
        let a = UnsafeRawPointer(first), b = UnsafeRawPointer(second)
        var position = 0
        while position &+ 8 <= count {
            guard a.loadUnaligned(fromByteOffset: position, as: UInt64.self) == b.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            else { return false }
            position &+= 8
        }
        while position < count {
            guard first[position] == second[position] else { return false }
            position &+= 1
        }
        return true
    }

    /// Whether every one of the `count` bytes at `start` is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(start)
        var combined: UInt64 = 0
        var position = 0
        while position &+ 8 <= count {
            combined |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position &+= 8
        }
        while position < count {
            combined |= UInt64(start[position])
            position &+= 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    /// FNV-1a over `bytes`, folded so the low bits (a table slot) depend on every byte.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ hash >> 29)
    }
}
