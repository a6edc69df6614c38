/// Inversion modulo an odd prime by a binary extended Euclidean algorithm (Kaliski's "almost
/// Montgomery inverse"): variable time (only public data is inverted here), and each round is
/// a subtraction, an addition and two shifts of plain integers, with no reduction modulo M
/// until the end.
extension Residue {
    /// self⁻¹ (zero gives zero).
    var inverse: Residue {
        guard !isZero else { return .zero }
        // The words are a = x·R; the almost inverse is a⁻¹·2ᵏ, and x⁻¹·R = a⁻¹·R² is that
        // times 2^(2b − k) (R = 2ᵇ): a Montgomery product by R² (times R) and one by 2^(2b − k).
        let (almost, shift) = Self.almostInverse(limbs)
        let bits = 64 * M.wordCount
        return Residue(montgomery: Self.montgomeryProduct(Self.montgomeryProduct(almost, M.rSquared), Self.powerOfTwo(2 * bits - shift)))
    }

    /// x with x·value ≡ 1 (mod M), for 0 < value < M (zero gives zero).
    static func ordinaryInverse(_ value: Limbs) -> Limbs {
        guard !value.isZero else { return .zero }
        // value⁻¹ = almost·2⁻ᵏ = almost·R⁻¹·2^(2b − k)·R⁻¹·R: two Montgomery products, by 1 and by 2^(2b − k).
        let (almost, shift) = almostInverse(value)
        let bits = 64 * M.wordCount
        return montgomeryProduct(montgomeryProduct(almost, Limbs(1)), powerOfTwo(2 * bits - shift))
    }

    /// (value⁻¹·2ᵏ mod M, k) for 0 < value < M, with 0 < k < 2b (M below 2ᵇ).
    ///
    /// Invariants: value·r ≡ −u·2ᵏ and value·s ≡ v·2ᵏ (mod M); M = u·s + v·r with u, v ≥ 1 and
    /// r, s ≥ 0, so r and s never exceed M; gcd(u, v) = 1. They end at u = v = 1, where
    /// value·(M − r) ≡ 2ᵏ; u·v halves at least once per unit of k, so k < 2b. u and v are kept odd: each round subtracts the smaller from the larger, adds the other
    /// pair's coefficient, and strips every factor of two of the difference at once (shifting
    /// its coefficient left as far), so a round costs one unpredictable comparison, not one per bit.
    static func almostInverse(_ value: Limbs) -> (Limbs, Int) {
        let count = M.wordCount
        var u = M.modulus
        var v = value
        var r = Limbs.zero
        var s = Limbs(1)
        var k = 0
        stripTwos(&v, shiftingLeft: &r, count: &k)
        while u != v {
            if v.isLess(than: u, count: count) {
                u.subtract(v, count: count)
                r.add(s, count: count)
                stripTwos(&u, shiftingLeft: &s, count: &k)
            } else {
                v.subtract(u, count: count)
                s.add(r, count: count)
                stripTwos(&v, shiftingLeft: &r, count: &k)
            }
        }
        // u = v = 1: M = s + r with s ≥ 1, so r < M, and M − r ≡ value⁻¹·2ᵏ.
        var almost = M.modulus
        almost.subtract(r, count: count)
        return (almost, k)
    }

    /// Divides `w` (nonzero) by its largest power-of-two factor 2ᶻ, multiplies `coefficient` by
    /// 2ᶻ (the invariant keeps it below M) and adds z to `count`.
    @inline(__always)
    private static func stripTwos(_ w: inout Limbs, shiftingLeft coefficient: inout Limbs, count: inout Int) {
        while w.words.0 & 1 == 0 {
            // At most 63 bits per step: a zero low word shifts by 63 and goes round again.
            let shift = w.words.0 == 0 ? 63 : w.words.0.trailingZeroBitCount
            w.shiftRight(shift, count: M.wordCount)
            coefficient.shiftLeft(shift, count: M.wordCount)
            count += shift
        }
    }

    /// 2ᵉ mod M for 0 ≤ e ≤ 2b, as plain words. M exceeds 2^(b−1) (its top bit is set, as for
    /// the four moduli of the two curves), so 2ᵉ for e < b is already reduced.
    static func powerOfTwo(_ exponent: Int) -> Limbs {
        let direct = min(exponent, 64 * M.wordCount - 1)
        var power = Limbs()
        power[direct >> 6] = 1 << UInt64(direct & 63)
        // Modular doubling does not depend on the Montgomery form.
        var residue = Residue(montgomery: power)
        for _ in direct..<exponent { residue = residue + residue }
        return residue.limbs
    }
}

extension Limbs {
    /// The first `count` words shifted right by `shift` bits (1 ≤ shift ≤ 63).
    @inline(__always)
    mutating func shiftRight(_ shift: Int, count: Int) {
        let right = UInt64(shift), left = UInt64(64 - shift)
        for index in 0..<count - 1 { self[index] = self[index] >> right | self[index + 1] << left }
        self[count - 1] >>= right
    }

    /// The first `count` words shifted left by `shift` bits (1 ≤ shift ≤ 63); the bits shifted
    /// out of the top word are lost.
    @inline(__always)
    mutating func shiftLeft(_ shift: Int, count: Int) {
        let left = UInt64(shift), right = UInt64(64 - shift)
        for index in stride(from: count - 1, to: 0, by: -1) { self[index] = self[index] << left | self[index - 1] >> right }
        self[0] <<= left
    }

    /// self − other over the first `count` words (other not above self).
    @inline(__always)
    mutating func subtract(_ other: Limbs, count: Int) {
        var borrow: UInt64 = 0
        for index in 0..<count { self[index] = subtractWithBorrow(self[index], other[index], &borrow) }
    }

    /// self + other over the first `count` words (the sum must fit them).
    @inline(__always)
    mutating func add(_ other: Limbs, count: Int) {
        var carry: UInt64 = 0
        for index in 0..<count { self[index] = addWithCarry(self[index], other[index], &carry) }
    }
}
