/// The Poly1305 one-time authenticator (RFC 8439 §2.5): a 32-byte one-time key (r, s) and a
/// message give a 16-byte tag, the message read as 16-byte little-endian blocks, each with a 1 bit
/// above it, evaluated as a polynomial at r modulo 2¹³⁰ − 5, plus s. A key must never
/// authenticate two messages, so it is internal: ``ChaCha20Poly1305`` derives a fresh one per nonce.
///
/// Numbers modulo 2¹³⁰ − 5 are five 26-bit limbs in 64-bit words, so every product and sum fits
/// without overflow; nothing branches or indexes on secret values.
struct Poly1305 {
    static let tagByteCount = 16
    private static let limbMask: UInt64 = 0x3ff_ffff

    /// r, clamped, in limbs; and 5 × r's limbs 1–4, which the reduction uses (2¹³⁰ ≡ 5).
    private var r: (UInt64, UInt64, UInt64, UInt64, UInt64)
    private var fiveR: (UInt64, UInt64, UInt64, UInt64)
    /// s, as four little-endian words.
    private var s: (UInt32, UInt32, UInt32, UInt32)
    /// The accumulator.
    private var h: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    /// Bytes of a block not yet complete.
    private var pending = SIMD16<UInt8>()
    private var pendingCount = 0

    /// A 32-byte one-time key: r (clamped here), then s.
    init(key: UnsafeRawBufferPointer) {
        precondition(key.count == 32)
        let words = Self.words(key, at: 0)
        // Clamping (§2.5.1): the top four bits of bytes 3, 7, 11, 15 and the low two of 4, 8, 12 cleared.
        let clamped = (words.0 & 0x0fff_ffff, words.1 & 0x0fff_fffc, words.2 & 0x0fff_fffc, words.3 & 0x0fff_fffc)
        r = Self.limbs(clamped)
        fiveR = (r.1 * 5, r.2 * 5, r.3 * 5, r.4 * 5)
        s = Self.words(key, at: 16)
    }

    /// Four little-endian words from `bytes` at `offset`.
    private static func words(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt32, UInt32, UInt32, UInt32) {
        func word(_ index: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * index, as: UInt32.self)) }
        return (word(0), word(1), word(2), word(3))
    }

    /// 128 bits (four little-endian words) as five 26-bit limbs.
    private static func limbs(_ words: (UInt32, UInt32, UInt32, UInt32)) -> (UInt64, UInt64, UInt64, UInt64, UInt64) {
        let (w0, w1, w2, w3) = (UInt64(words.0), UInt64(words.1), UInt64(words.2), UInt64(words.3))
        return (w0 & limbMask, (w0 >> 26 | w1 << 6) & limbMask, (w1 >> 20 | w2 << 12) & limbMask, (w2 >> 14 | w3 << 18) & limbMask, w3 >> 8)
    }

    /// Adds more of the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        if pendingCount > 0 {
            while pendingCount < 16 && offset < bytes.count {
                pending[pendingCount] = bytes[offset]
                pendingCount += 1
                offset += 1
            }
            guard pendingCount == 16 else { return }
            processPending(highBit: true)
        }
        while bytes.count - offset >= 16 {
            absorb(Self.words(bytes, at: offset), highBit: true)
            offset += 16
        }
        while offset < bytes.count {
            pending[pendingCount] = bytes[offset]
            pendingCount += 1
            offset += 1
        }
    }

    /// Adds zero bytes up to the next multiple of 16 (none if the message so far is one): the
    /// padding ChaCha20-Poly1305 puts after the associated data and after the ciphertext.
    mutating func padToBlockBoundary() {
        guard pendingCount > 0 else { return }
        for index in pendingCount..<16 { pending[index] = 0 }
        processPending(highBit: true)
    }

    /// The tag. The authenticator's state (key and accumulator) is then overwritten with zeros
    /// and it must not be used again.
    mutating func finalize() -> [UInt8] {
        if pendingCount > 0 {
            // The last, short block: its bytes, then a 1 byte, then zeros, and no 2¹²⁸ bit.
            pending[pendingCount] = 1
            for index in pendingCount + 1..<16 { pending[index] = 0 }
            processPending(highBit: false)
        }
        var (h0, h1, h2, h3, h4) = h
        // Carry fully, so every limb is below 2²⁶ and h < 2¹³⁰ + a little.
        var carry = h1 >> 26; h1 &= Self.limbMask; h2 += carry
        carry = h2 >> 26; h2 &= Self.limbMask; h3 += carry
        carry = h3 >> 26; h3 &= Self.limbMask; h4 += carry
        carry = h4 >> 26; h4 &= Self.limbMask; h0 += carry * 5
        carry = h0 >> 26; h0 &= Self.limbMask; h1 += carry
        // g = h + 5 − 2¹³⁰; when g is not negative, h ≥ p and g is h mod p. Chosen by mask, not branch.
        var g0 = h0 + 5; carry = g0 >> 26; g0 &= Self.limbMask
        var g1 = h1 + carry; carry = g1 >> 26; g1 &= Self.limbMask
        var g2 = h2 + carry; carry = g2 >> 26; g2 &= Self.limbMask
        var g3 = h3 + carry; carry = g3 >> 26; g3 &= Self.limbMask
        let g4 = (h4 + carry) &- (1 << 26)
        let useG = (g4 >> 63) &- 1 // all ones when g4 did not go below zero
        h0 = h0 & ~useG | g0 & useG
        h1 = h1 & ~useG | g1 & useG
        h2 = h2 & ~useG | g2 & useG
        h3 = h3 & ~useG | g3 & useG
        h4 = h4 & ~useG | g4 & useG
        // h mod 2¹²⁸ as four 32-bit words, plus s, carrying between words and dropping the last carry.
        let words: [UInt64] = [
            (h0 | h1 << 26) & 0xffff_ffff, (h1 >> 6 | h2 << 20) & 0xffff_ffff,
            (h2 >> 12 | h3 << 14) & 0xffff_ffff, (h3 >> 18 | h4 << 8) & 0xffff_ffff,
        ]
        let sWords = [s.0, s.1, s.2, s.3]
        var tag: [UInt8] = []
        tag.reserveCapacity(Self.tagByteCount)
        var sum: UInt64 = 0
        for index in 0..<4 {
            sum = words[index] + UInt64(sWords[index]) + (sum >> 32)
            for shift in stride(from: 0, to: 32, by: 8) { tag.append(UInt8(truncatingIfNeeded: sum >> UInt64(shift))) }
        }
        erase()
        return tag
    }

    private mutating func processPending(highBit: Bool) {
        absorb(withUnsafeBytes(of: pending) { Self.words($0, at: 0) }, highBit: highBit)
        pending = SIMD16()
        pendingCount = 0
    }

    /// h = (h + block) × r mod 2¹³⁰ − 5, the block given as four little-endian words and its
    /// 2¹²⁸ bit set when `highBit` (every block but a short last one).
    private mutating func absorb(_ block: (UInt32, UInt32, UInt32, UInt32), highBit: Bool) {
        let m = Self.limbs(block)
        let h0 = h.0 + m.0, h1 = h.1 + m.1, h2 = h.2 + m.2, h3 = h.3 + m.3
        let h4 = h.4 + m.4 + (highBit ? 1 << 24 : 0)
        let (r0, r1, r2, r3, r4) = r
        let (s1, s2, s3, s4) = fiveR
        // Schoolbook product; a limb product that lands at 2¹³⁰ or above wraps to 5 × it.
        var d0 = h0 * r0 + h1 * s4 + h2 * s3 + h3 * s2 + h4 * s1
        var d1 = h0 * r1 + h1 * r0 + h2 * s4 + h3 * s3 + h4 * s2
        var d2 = h0 * r2 + h1 * r1 + h2 * r0 + h3 * s4 + h4 * s3
        var d3 = h0 * r3 + h1 * r2 + h2 * r1 + h3 * r0 + h4 * s4
        var d4 = h0 * r4 + h1 * r3 + h2 * r2 + h3 * r1 + h4 * r0
        // Partial carry: back to limbs of about 26 bits.
        d1 += d0 >> 26; d0 &= Self.limbMask
        d2 += d1 >> 26; d1 &= Self.limbMask
        d3 += d2 >> 26; d2 &= Self.limbMask
        d4 += d3 >> 26; d3 &= Self.limbMask
        d0 += (d4 >> 26) * 5; d4 &= Self.limbMask
        d1 += d0 >> 26; d0 &= Self.limbMask
        h = (d0, d1, d2, d3, d4)
    }

    /// Writes zeros over the key and the accumulator (see ``Zeroization`` for what this cannot reach).
    private mutating func erase() {
        r = (0, 0, 0, 0, 0)
        fiveR = (0, 0, 0, 0)
        s = (0, 0, 0, 0)
        h = (0, 0, 0, 0, 0)
        pending = SIMD16()
        pendingCount = 0
    }
}
