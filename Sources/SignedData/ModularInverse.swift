/// Inversion modulo an odd prime by the binary extended Euclidean algorithm: variable time (only
/// public data is inverted here) and about a fifth of the cost of Fermat's a^(M−2), which takes a
/// squaring per bit of the modulus.
extension Residue {
    /// self⁻¹ (zero gives zero).
    var inverse: Residue {
        guard !isZero else { return .zero }
        // The words are a·R; their ordinary inverse is a⁻¹·R⁻¹, and two Montgomery products by
        // R² (each multiplies by R) bring it to a⁻¹·R, the Montgomery form of a⁻¹.
        let inverted = Self.ordinaryInverse(limbs)
        return Residue(montgomery: Self.montgomeryProduct(Self.montgomeryProduct(inverted, M.rSquared), M.rSquared))
    }

    /// x with x·value ≡ 1 (mod M), for 0 < value < M.
    ///
    /// Invariants: x1·value ≡ u and x2·value ≡ v (mod M), u and v positive with gcd 1, x1 and x2
    /// below M. u and v are kept odd: each round subtracts the smaller from the larger and strips
    /// all the factors of two of the difference at once (a shift by its trailing zero count,
    /// with one division of x1 or x2 by that power of two mod M), so a round costs one
    /// unpredictable comparison rather than one per bit. They meet at 1.
    static func ordinaryInverse(_ value: Limbs) -> Limbs {
        let count = M.wordCount
        guard !value.isZero else { return .zero }
        var u = value
        var v = M.modulus
        var x1 = Limbs(1)
        var x2 = Limbs.zero
        stripTwos(&u, &x1)
        while u != v {
            if u.isLess(than: v, count: count) {
                v.subtract(u, count: count)
                x2 = (Residue(montgomery: x2) - Residue(montgomery: x1)).limbs
                stripTwos(&v, &x2)
            } else {
                u.subtract(v, count: count)
                x1 = (Residue(montgomery: x1) - Residue(montgomery: x2)).limbs
                stripTwos(&u, &x1)
            }
        }
        return x1
    }

    /// Divides `w` (nonzero) by its largest power-of-two factor 2ᵏ and `x` by 2ᵏ mod M.
    @inline(__always)
    private static func stripTwos(_ w: inout Limbs, _ x: inout Limbs) {
        while w.words.0 & 1 == 0 {
            // At most 63 bits per step: a zero low word shifts by 63 and goes round again.
            let shift = w.words.0 == 0 ? 63 : w.words.0.trailingZeroBitCount
            w.shiftRight(shift, count: M.wordCount)
            x = divided(x, byTwoToThe: shift)
        }
    }

    /// x/2ᵏ mod M for x below M and 1 ≤ k ≤ 63: (x + m·M)/2ᵏ with m < 2ᵏ chosen (from
    /// −M⁻¹ mod 2⁶⁴) so that the division is exact, less M when that is still M or more.
    @inline(__always)
    static func divided(_ x: Limbs, byTwoToThe k: Int) -> Limbs {
        let count = M.wordCount
        let modulus = M.modulus
        let m = (x.words.0 &* M.inverseNegated) & (UInt64.max >> UInt64(64 - k))
        // t = x + m·M, count words and a top word.
        var t = Limbs()
        var carry: UInt64 = 0
        for index in 0..<count { t[index] = multiplyAccumulate(x[index], m, modulus[index], &carry) }
        var top = carry
        // t >> k: below M + M/2ᵏ, so below 2M; its top word is what exceeds count words.
        t.shiftRight(k, count: count)
        t[count - 1] |= top << UInt64(64 - k)
        top >>= UInt64(k)
        var borrow: UInt64 = 0
        var reduced = Limbs()
        for index in 0..<count { reduced[index] = subtractWithBorrow(t[index], modulus[index], &borrow) }
        // t ≥ M exactly when the subtraction did not borrow past the top word.
        return top >= borrow ? reduced : t
    }
}

extension Limbs {
    /// Whether the value is 1.
    var isOne: Bool { words.0 == 1 && (words.1 | words.2 | words.3 | words.4 | words.5) == 0 }

    /// The first `count` words shifted right by `shift` bits (1 ≤ shift ≤ 63).
    @inline(__always)
    mutating func shiftRight(_ shift: Int, count: Int) {
        let right = UInt64(shift), left = UInt64(64 - shift)
        for index in 0..<count - 1 { self[index] = self[index] >> right | self[index + 1] << left }
        self[count - 1] >>= right
    }

    /// self − other over the first `count` words (other not above self).
    @inline(__always)
    mutating func subtract(_ other: Limbs, count: Int) {
        var borrow: UInt64 = 0
        for index in 0..<count { self[index] = subtractWithBorrow(self[index], other[index], &borrow) }
    }
}
