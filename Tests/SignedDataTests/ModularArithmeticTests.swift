import TestSupport
import Testing

@testable import Cryptography

/// The binary inversion on all four moduli the curves use, and the SHA-256 midstate the JWS
/// header cache resumes from.
@Suite struct ModularArithmeticTests {

    /// Values below M: the edges (1, 2, M − 1, M − 2, powers of two) and seeded random ones.
    static func samples<M: MontgomeryModulus>(_: M.Type) -> [Limbs] {
        let modulus = M.modulus
        var minusOne = modulus
        minusOne[0] -= 1
        var minusTwo = modulus
        minusTwo[0] -= 2
        var values = [Limbs(1), Limbs(2), Limbs(3), minusOne, minusTwo]
        for bit in stride(from: 1, to: 64 * M.wordCount - 1, by: 37) {
            var power = Limbs()
            power[bit >> 6] = 1 << UInt64(bit & 63)
            if power.isLess(than: modulus, count: M.wordCount) { values.append(power) }
        }
        var random = SplitMix(seed: 0x5eed)
        while values.count < 400 {
            var value = Limbs()
            for index in 0..<M.wordCount { value[index] = random.next() }
            if value.isLess(than: modulus, count: M.wordCount) { values.append(value) }
        }
        return values
    }

    static func checkInverses<M: MontgomeryModulus>(_ modulus: M.Type) {
        for value in samples(modulus) {
            let residue = Residue<M>(canonical: value)!
            #expect(residue * residue.inverse == .one, "\(M.self): \(value)")
            // The ordinary inverse, without the Montgomery form around it.
            let inverse = Residue<M>.ordinaryInverse(value)
            #expect(Residue<M>(canonical: value)! * Residue<M>(canonical: inverse)! == .one, "\(M.self): \(value)")
        }
        #expect(Residue<M>.zero.inverse == .zero, "zero has no inverse and gives zero, as Fermat's power did")
    }

    @Test func inverseModuloP256FieldPrime() { Self.checkInverses(P256FieldPrime.self) }
    @Test func inverseModuloP256GroupOrder() { Self.checkInverses(P256GroupOrder.self) }
    @Test func inverseModuloP384FieldPrime() { Self.checkInverses(P384FieldPrime.self) }
    @Test func inverseModuloP384GroupOrder() { Self.checkInverses(P384GroupOrder.self) }

    @Test("SHA-256 resumed from a midstate equals SHA-256 of the whole message, for every split and length")
    func sha256Midstate() {
        var random = SplitMix(seed: 0x256)
        let message = (0..<400).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for total in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 200, 400] {
            let whole = Array(message.prefix(total))
            for prefixLength in Set([0, 1, 63, 64, 65, 127, 128, 129, total / 2, total]) where prefixLength <= total {
                let midstate = SHA256.Midstate(prefix: whole.prefix(prefixLength))
                #expect(midstate.byteCount == prefixLength / 64 * 64)
                let resumed = SHA256.hash(whole[midstate.byteCount...], after: midstate)
                #expect(resumed == SHA256.hash(whole), "length \(total), prefix \(prefixLength)")
            }
        }
    }
}
