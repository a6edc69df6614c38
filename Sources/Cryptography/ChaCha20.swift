/// The ChaCha20 stream cipher (RFC 8439 §2.3–§2.4): a 32-byte key, a 12-byte nonce and a 32-bit
/// block counter give 64-byte blocks of keystream, XORed with the message. It authenticates
/// nothing, so it is internal: callers use ``ChaCha20Poly1305``.
struct ChaCha20 {
    static let keyByteCount = 32
    static let nonceByteCount = 12
    static let blockByteCount = 64

    /// The key as eight little-endian words, then the nonce as three.
    private var key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    private var nonce: (UInt32, UInt32, UInt32)

    /// `key` is 32 bytes and `nonce` 12 (the caller checked).
    init(key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) {
        precondition(key.count == Self.keyByteCount && nonce.count == Self.nonceByteCount)
        func word(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
        self.key = (word(key, 0), word(key, 1), word(key, 2), word(key, 3), word(key, 4), word(key, 5), word(key, 6), word(key, 7))
        self.nonce = (word(nonce, 0), word(nonce, 1), word(nonce, 2))
    }

    /// The block function: keystream block `counter`, its 16 words written little-endian into
    /// `output` (64 bytes).
    func block(counter: UInt32, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= Self.blockByteCount)
        // The state (§2.3), one variable a word: "expand 32-byte k", the key, the counter, the nonce.
        var (x0, x1, x2, x3): (UInt32, UInt32, UInt32, UInt32) = (0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574)
        var (x4, x5, x6, x7, x8, x9, x10, x11) = key
        var (x12, x13, x14, x15) = (counter, nonce.0, nonce.1, nonce.2)
        for _ in 0..<10 {
            // Column rounds, then diagonal rounds.
            Self.quarterRound(&x0, &x4, &x8, &x12)
            Self.quarterRound(&x1, &x5, &x9, &x13)
            Self.quarterRound(&x2, &x6, &x10, &x14)
            Self.quarterRound(&x3, &x7, &x11, &x15)
            Self.quarterRound(&x0, &x5, &x10, &x15)
            Self.quarterRound(&x1, &x6, &x11, &x12)
            Self.quarterRound(&x2, &x7, &x8, &x13)
            Self.quarterRound(&x3, &x4, &x9, &x14)
        }
        // The working state plus the initial state.
        func store(_ index: Int, _ word: UInt32) { output.storeBytes(of: word.littleEndian, toByteOffset: 4 * index, as: UInt32.self) }
        store(0, x0 &+ 0x6170_7865); store(1, x1 &+ 0x3320_646e); store(2, x2 &+ 0x7962_2d32); store(3, x3 &+ 0x6b20_6574)
        store(4, x4 &+ key.0); store(5, x5 &+ key.1); store(6, x6 &+ key.2); store(7, x7 &+ key.3)
        store(8, x8 &+ key.4); store(9, x9 &+ key.5); store(10, x10 &+ key.6); store(11, x11 &+ key.7)
        store(12, x12 &+ counter); store(13, x13 &+ nonce.0); store(14, x14 &+ nonce.1); store(15, x15 &+ nonce.2)
    }

    /// The quarter round (§2.1).
    @inline(__always)
    private static func quarterRound(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
        a &+= b; d ^= a; d = d.rotatedLeft(16)
        c &+= d; b ^= c; b = b.rotatedLeft(12)
        a &+= b; d ^= a; d = d.rotatedLeft(8)
        c &+= d; b ^= c; b = b.rotatedLeft(7)
    }

    /// The number of 64-byte blocks `byteCount` bytes take.
    static func blockCount(_ byteCount: Int) -> Int { (byteCount + blockByteCount - 1) / blockByteCount }

    /// Writes `input` XOR the keystream from block `initialCounter` on into `output` (of the same
    /// count): encryption and decryption alike. The caller checked that the counter does not wrap.
    func xor(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, initialCounter: UInt32) {
        precondition(output.count == input.count)
        precondition(UInt64(initialCounter) + UInt64(Self.blockCount(input.count)) <= UInt64(UInt32.max) + 1)
        withUnsafeTemporaryAllocation(byteCount: Self.blockByteCount, alignment: 16) { keystream in
            var offset = 0
            var counter = initialCounter
            while offset < input.count {
                block(counter: counter, into: keystream)
                let length = min(Self.blockByteCount, input.count - offset)
                var index = 0
                while index + 8 <= length {
                    let word = input.loadUnaligned(fromByteOffset: offset + index, as: UInt64.self) ^ keystream.load(fromByteOffset: index, as: UInt64.self)
                    output.storeBytes(of: word, toByteOffset: offset + index, as: UInt64.self)
                    index += 8
                }
                while index < length {
                    output[offset + index] = input[offset + index] ^ keystream[index]
                    index += 1
                }
                offset += length
                counter &+= 1
            }
            Zeroization.overwrite(keystream)
        }
    }

    /// Writes zeros over the key (see ``Zeroization``: copies the compiler made are out of reach).
    mutating func erase() {
        key = (0, 0, 0, 0, 0, 0, 0, 0)
        nonce = (0, 0, 0)
    }
}

extension UInt32 {
    /// The bits rotated left by `count` (0 < count < 32).
    @inline(__always)
    func rotatedLeft(_ count: UInt32) -> UInt32 { self &<< count | self &>> (32 &- count) }
}
