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
        if count >= 8 {
            // Whole words, then the last eight bytes (overlapping what was compared) for the rest.
            while position &+ 8 < count {
                guard a.loadUnaligned(fromByteOffset: position, as: UInt64.self) == b.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                else { return false }
                position &+= 8
            }
            let last = count &- 8
            return a.loadUnaligned(fromByteOffset: last, as: UInt64.self) == b.loadUnaligned(fromByteOffset: last, as: UInt64.self)
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
        if count >= 8 {
            // Whole words, then the last eight bytes (overlapping what was read) for the rest.
            while position &+ 8 < count {
                combined |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                position &+= 8
            }
            combined |= raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            return combined & 0x8080_8080_8080_8080 == 0
        }
        while position < count {
            combined |= UInt64(start[position])
            position &+= 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    /// A hash of `bytes` whose low bits (a table slot) depend on every byte: eight bytes per
    /// multiplication (the last eight overlapping the rest when the count is not a multiple of
    /// eight, shorter runs gathered byte by byte), then a 64-bit finalizer (MurmurHash3's fmix64).
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let count = bytes.count
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(truncatingIfNeeded: count &+ 1)
        if let start = bytes.baseAddress {
            let raw = UnsafeRawPointer(start)
            if count >= 8 {
                var position = 0
                while position &+ 8 < count {
                    hash = (hash ^ raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                    hash ^= hash >> 31
                    position &+= 8
                }
                hash ^= raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            } else {
                var word: UInt64 = 0
                for position in 0..<count { word |= UInt64(start[position]) &<< (UInt64(position) &* 8) }
                hash ^= word
            }
        }
        hash = (hash ^ hash >> 33) &* 0xFF51_AFD7_ED55_8CCD
        hash = (hash ^ hash >> 33) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: hash ^ hash >> 33)
    }
}
