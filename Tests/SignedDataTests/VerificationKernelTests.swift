import TestSupport
import Testing

@testable import Cryptography
@testable import SignedData

/// The pieces a verification is made of that have no vectors of their own: the word-at-a-time
/// byte comparison of a JWS header, the digit-at-a-time NAF of a scalar piece, the power of two
/// that finishes an inversion, and the in-place JWS split.
@Suite struct VerificationKernelTests {
    @Test("ByteComparison agrees with element-wise equality for every length and any one differing byte")
    func byteComparison() {
        var random = SplitMix(seed: 0xB17E)
        for count in Array(0...80) + [4095, 4096, 4097] {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let copy = Array(bytes)
            #expect(ByteComparison.equal(bytes, copy), "length \(count)")
            #expect(ByteComparison.equal(bytes[...], copy), "slice, length \(count)")
            // A slice starting at an odd offset: unaligned words.
            let shifted = [0x55] + bytes
            #expect(ByteComparison.equal(shifted[1...], bytes), "unaligned, length \(count)")
            for position in Set([0, count / 3, count / 2, count - 1]) where position >= 0 && position < count {
                var changed = copy
                changed[position] ^= 0x80
                #expect(!ByteComparison.equal(bytes, changed), "length \(count), byte \(position) differs")
            }
            #expect(!ByteComparison.equal(bytes, copy + [0]), "length \(count) against \(count + 1)")
            if count > 0 { #expect(!ByteComparison.equal(bytes, copy.dropLast()), "length \(count) against \(count - 1)") }
        }
    }

    /// Σ digit·2ⁱ as (positive part, negative part), each summed in six words.
    static func value(of digits: [Int32]) -> (Limbs, Limbs) {
        var positive = Limbs(), negative = Limbs()
        for (index, digit) in digits.enumerated() where digit != 0 {
            var term = Limbs()
            let magnitude = UInt64(abs(Int64(digit)))
            term[index >> 6] = magnitude << UInt64(index & 63)
            if index & 63 > 0, index >> 6 < 5 { term[(index >> 6) + 1] = magnitude >> UInt64(64 - (index & 63)) }
            if digit > 0 { positive.add(term, count: 6) } else { negative.add(term, count: 6) }
        }
        return (positive, negative)
    }

    @Test("The NAF of a scalar's piece sums to the piece, with odd digits below 2^(w−1) and w − 1 zeros after each")
    func nonAdjacentForm() {
        var random = SplitMix(seed: 0x4AF)
        var scalars = [Limbs(), Limbs(1), Limbs(UInt64.max, UInt64.max, UInt64.max, UInt64.max, UInt64.max, UInt64.max)]
        for _ in 0..<200 { scalars.append(Limbs(random.next(), random.next(), random.next(), random.next(), random.next(), random.next())) }
        // The shapes in use: 8 pieces of 32 / 48 bits (w 7), 2 pieces of 128 / 192 bits (w 5).
        for (bits, parts, window) in [(256, 8, 7), (384, 8, 7), (256, 2, 5), (384, 2, 5)] {
            let partBits = bits / parts
            for scalar in scalars {
                for part in 0..<parts {
                    let start = part * partBits
                    var digits = [Int32](repeating: 7, count: partBits + 1)
                    digits.withUnsafeMutableBufferPointer { writeNonAdjacentForm(of: scalar, bits: start, count: partBits, window: window, into: $0) }
                    let (positive, negative) = Self.value(of: digits)
                    var sum = negative
                    sum.add(scalar.bits(start, count: partBits), count: 6)
                    #expect(sum == positive, "bits \(start)..<\(start + partBits) of \(scalar), w \(window)")
                    var lastNonzero = -window
                    for (index, digit) in digits.enumerated() where digit != 0 {
                        #expect(digit & 1 == 1 && abs(digit) < 1 << (window - 1), "digit \(digit)")
                        #expect(index - lastNonzero >= window, "digits \(lastNonzero) and \(index) too close")
                        lastNonzero = index
                    }
                }
            }
        }
    }

    static func checkPowers<M: MontgomeryModulus>(_: M.Type) {
        let bits = 64 * M.wordCount
        var expected = Residue<M>(montgomery: Limbs(1))
        for exponent in 0...(2 * bits) {
            #expect(Residue<M>.powerOfTwo(exponent) == expected.limbs, "\(M.self): 2^\(exponent)")
            expected = expected + expected
        }
    }

    @Test("2^e mod M for every exponent an inversion can end with") func powersOfTwo() {
        Self.checkPowers(P256FieldPrime.self)
        Self.checkPowers(P256GroupOrder.self)
        Self.checkPowers(P384FieldPrime.self)
        Self.checkPowers(P384GroupOrder.self)
    }

    @Test("The almost inverse is value⁻¹·2ᵏ with 0 < k < 2b") func almostInverse() {
        var random = SplitMix(seed: 0xA1)
        for _ in 0..<200 {
            let value = Limbs(random.next(), random.next(), random.next(), random.next() >> 1)
            let (almost, k) = Residue<P256GroupOrder>.almostInverse(value)
            #expect(k > 0 && k < 512)
            // value·almost ≡ 2ᵏ: in Montgomery form, (value·R)·(almost·R)·R⁻¹ = value·almost·R.
            let product = Residue<P256GroupOrder>(canonical: value)! * Residue<P256GroupOrder>(canonical: almost)!
            #expect(product == Residue<P256GroupOrder>(canonical: Residue<P256GroupOrder>.powerOfTwo(k))!)
        }
    }

    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.AAEC"

    @Test("A JWS split in place from bytes, a slice or a non-contiguous collection equals the one split from its text")
    func jwsFromBytes() throws {
        let fromText = try JWSCompact(Self.jws)
        #expect(fromText.header == Array(#"{"alg":"ES256"}"#.utf8))
        #expect(fromText.payload == Array(#"{"a":1}"#.utf8))
        #expect(fromText.signature == [0, 1, 2])
        #expect(fromText.signingInput == Array("eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ".utf8))
        #expect(Array(fromText.encodedHeader) == Array("eyJhbGciOiJFUzI1NiJ9".utf8))
        let padded = Array("  \(Self.jws)  ".utf8)
        #expect(try JWSCompact(utf8: padded[2..<padded.count - 2]) == fromText)
        #expect(try JWSCompact(utf8: Array(Self.jws.utf8)) == fromText)
        // A lazy view has no contiguous storage: the copying path.
        #expect(try JWSCompact(utf8: Array(Self.jws.utf8).lazy.map { $0 }) == fromText)
        for (text, parts) in [("abc", 1), ("a.b", 2), ("a.b.c.d", 4), ("...", 4)] {
            #expect(throws: JWSFailure.malformed("JWS has \(parts) part\(parts == 1 ? "" : "s"), expected 3")) { try JWSCompact(text) }
        }
        #expect(throws: JWSFailure.malformed("JWS payload is not base64url")) { try JWSCompact("eyJ9.e+J9.AA") }
    }
}
