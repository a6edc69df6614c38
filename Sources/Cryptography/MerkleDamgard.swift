/// The message padding of the SHA-2 family (FIPS 180-4 §5.1): the message, a 0x80 byte, zeros,
/// and the message's length in bits as a big-endian field, in whole blocks.
enum MerkleDamgard {
    /// Calls `compress` with each `blockSize`-byte block of the padded `bytes`, in order. The
    /// length field is `lengthFieldSize` bytes (8 for SHA-256, 16 for SHA-512); lengths here
    /// are far below 2⁶⁴ bits, so its high part is zero. `precedingByteCount` (a multiple of
    /// `blockSize`) bytes of the message were compressed before `bytes`: they count in the length.
    static func process(
        _ bytes: some Collection<UInt8>, blockSize: Int, lengthFieldSize: Int, precedingByteCount: Int = 0,
        compress: (UnsafeRawBufferPointer) -> Void
    ) {
        let handled: Int? = bytes.withContiguousStorageIfAvailable { buffer in
            process(
                contiguous: UnsafeRawBufferPointer(buffer), blockSize: blockSize, lengthFieldSize: lengthFieldSize,
                precedingByteCount: precedingByteCount, compress: compress)
            return buffer.count
        }
        if handled == nil {
            Array(bytes).withUnsafeBytes {
                process(contiguous: $0, blockSize: blockSize, lengthFieldSize: lengthFieldSize, precedingByteCount: precedingByteCount, compress: compress)
            }
        }
    }

    private static func process(
        contiguous bytes: UnsafeRawBufferPointer, blockSize: Int, lengthFieldSize: Int, precedingByteCount: Int,
        compress: (UnsafeRawBufferPointer) -> Void
    ) {
        let whole = bytes.count / blockSize * blockSize
        var offset = 0
        while offset < whole {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + blockSize]))
            offset += blockSize
        }
        // The tail, 0x80, zeros and the length: one block, or two when the tail leaves no room.
        let tailCount = bytes.count - whole
        let paddedCount = tailCount + 1 + lengthFieldSize <= blockSize ? blockSize : 2 * blockSize
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: paddedCount) { padded in
            padded.initialize(repeating: 0)
            for index in 0..<tailCount { padded[index] = bytes[whole + index] }
            padded[tailCount] = 0x80
            let bitLength = UInt64(precedingByteCount + bytes.count) &* 8
            for index in 0..<8 { padded[paddedCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * index)) }
            let raw = UnsafeRawBufferPointer(padded)
            compress(UnsafeRawBufferPointer(rebasing: raw[0..<blockSize]))
            if paddedCount == 2 * blockSize { compress(UnsafeRawBufferPointer(rebasing: raw[blockSize..<2 * blockSize])) }
        }
    }
}

extension FixedWidthInteger {
    /// The value's bytes, most significant first.
    var bigEndianBytes: [UInt8] {
        (0..<Self.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) }
    }
}

extension FixedWidthInteger where Self: UnsignedInteger {
    /// The bits rotated right by `count` (0 < count < bitWidth).
    @inline(__always)
    func rotatedRight(_ count: Int) -> Self {
        self >> count | self << (Self.bitWidth - count)
    }
}
