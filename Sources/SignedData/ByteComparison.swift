/// Byte-for-byte equality of two byte ranges, eight bytes per step: a JWS protected header
/// (about 4 KB, the whole `x5c` chain) is compared with a prepared one for every payload, where
/// a generic element-by-element comparison costs more than the rest of the header's handling.
enum ByteComparison {
    /// Whether `lhs` and `rhs` hold the same bytes (same count, same bytes in order).
    static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        if left == right { return true }
        var offset = 0
        var difference: UInt64 = 0
        // Whole words, OR-ing the differences of a few at a time so the loop has one branch per 32 bytes.
        while offset + 32 <= count {
            difference = (left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                | (left.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self) ^ right.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                | (left.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self) ^ right.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                | (left.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self) ^ right.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            if difference != 0 { return false }
            offset += 32
        }
        while offset + 8 <= count {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < count {
            if left.load(fromByteOffset: offset, as: UInt8.self) != right.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }

    /// Whether two contiguous byte collections (arrays, array slices) hold the same bytes.
    static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let answer: Bool?? = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
        if let answer = answer ?? nil { return answer }
        return lhs.elementsEqual(rhs)
    }
}
