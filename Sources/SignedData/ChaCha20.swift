/// The ChaCha20 stream cipher (RFC 8439 §2.3–§2.4): a 32-byte key, a 12-byte nonce and a 32-bit
/// block counter give 64-byte blocks of keystream, XORed with the message. It authenticates
/// nothing, so it is internal: callers use ``ChaCha20Poly1305``.
///
/// The state is held as four rows of four words; the RFC's column rounds then act on the rows'
/// lanes all at once, and its diagonal rounds on the same lanes after rows 1–3 are rotated by one,
/// two and three lanes so that each diagonal stands in one lane.
struct ChaCha20 {
    static let keyByteCount = 32
    static let nonceByteCount = 12
    /// Row 0: "expand 32-byte k" as four little-endian words.
    private static let constants = SIMD4<UInt32>(0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574)

    private var keyLow: SIMD4<UInt32>
    private var keyHigh: SIMD4<UInt32>
    private var nonce: SIMD3<UInt32>

    /// `key` is 32 bytes and `nonce` 12 (the caller checked).
    init(key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) {
        precondition(key.count == Self.keyByteCount && nonce.count == Self.nonceByteCount)
        func word(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
        keyLow = SIMD4(word(key, 0), word(key, 1), word(key, 2), word(key, 3))
        keyHigh = SIMD4(word(key, 4), word(key, 5), word(key, 6), word(key, 7))
        self.nonce = SIMD3(word(nonce, 0), word(nonce, 1), word(nonce, 2))
    }

    /// The block function: the 16 words of keystream block `counter`, as four rows.
    func block(counter: UInt32) -> (SIMD4<UInt32>, SIMD4<UInt32>, SIMD4<UInt32>, SIMD4<UInt32>) {
        let initial = (Self.constants, keyLow, keyHigh, SIMD4(counter, nonce[0], nonce[1], nonce[2]))
        var (a, b, c, d) = initial
        for _ in 0..<10 {
            Self.quarterRounds(&a, &b, &c, &d)
            (b, c, d) = (b.rotatingLanes(by: 1), c.rotatingLanes(by: 2), d.rotatingLanes(by: 3))
            Self.quarterRounds(&a, &b, &c, &d)
            (b, c, d) = (b.rotatingLanes(by: 3), c.rotatingLanes(by: 2), d.rotatingLanes(by: 1))
        }
        return (a &+ initial.0, b &+ initial.1, c &+ initial.2, d &+ initial.3)
    }

    /// The quarter round (RFC 8439 §2.1) on each of the four lanes.
    @inline(__always)
    private static func quarterRounds(_ a: inout SIMD4<UInt32>, _ b: inout SIMD4<UInt32>, _ c: inout SIMD4<UInt32>, _ d: inout SIMD4<UInt32>) {
        a &+= b; d ^= a; d = d.rotatedLeft(16)
        c &+= d; b ^= c; b = b.rotatedLeft(12)
        a &+= b; d ^= a; d = d.rotatedLeft(8)
        c &+= d; b ^= c; b = b.rotatedLeft(7)
    }

    /// The number of 64-byte blocks `byteCount` bytes take.
    static func blockCount(_ byteCount: Int) -> Int { (byteCount + 63) / 64 }

    /// Writes `input` XOR the keystream from block `initialCounter` on into `output` (of the same
    /// count): encryption and decryption alike. The caller checked that the counter does not wrap.
    func xor(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, initialCounter: UInt32) {
        precondition(output.count == input.count)
        precondition(UInt64(initialCounter) + UInt64(Self.blockCount(input.count)) <= UInt64(UInt32.max) + 1)
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { keystream in
            var offset = 0
            var counter = initialCounter
            while offset < input.count {
                let rows = block(counter: counter)
                func store(_ row: SIMD4<UInt32>, _ index: Int) {
                    for lane in 0..<4 { keystream.storeBytes(of: row[lane].littleEndian, toByteOffset: 16 * index + 4 * lane, as: UInt32.self) }
                }
                store(rows.0, 0); store(rows.1, 1); store(rows.2, 2); store(rows.3, 3)
                let length = min(64, input.count - offset)
                for index in 0..<length { output[offset + index] = input[offset + index] ^ keystream[index] }
                offset += length
                counter &+= 1
            }
            Zeroization.overwrite(keystream)
        }
    }

    /// Writes zeros over the key (see ``Zeroization``: copies the compiler made are out of reach).
    mutating func erase() {
        keyLow = .zero
        keyHigh = .zero
        nonce = .zero
    }
}

extension SIMD4 where Scalar == UInt32 {
    /// Each lane's bits rotated left by `count` (0 < count < 32).
    @inline(__always)
    func rotatedLeft(_ count: UInt32) -> Self { self &<< count | self &>> (32 - count) }

    /// The lanes moved `count` places towards lane 0, wrapping: lane i of the result is lane
    /// (i + count) mod 4 of `self`.
    @inline(__always)
    func rotatingLanes(by count: Int) -> Self {
        Self(self[count & 3], self[(count + 1) & 3], self[(count + 2) & 3], self[(count + 3) & 3])
    }
}
