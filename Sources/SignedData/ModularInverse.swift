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
    /// below M. Each round strips the factors of two from u and v (halving x1 and x2 mod M with
    /// them), then subtracts the smaller from the larger; one of them reaches 1.
    static func ordinaryInverse(_ value: Limbs) -> Limbs {
        let count = M.wordCount
        let modulus = M.modulus
        var u = value
        var v = modulus
        var x1 = Limbs(1)
        var x2 = Limbs.zero
        while !u.isOne, !v.isOne {
            while u.words.0 & 1 == 0 {
                u.shiftRightOne(count: count)
                x1 = halved(x1)
            }
            while v.words.0 & 1 == 0 {
                v.shiftRightOne(count: count)
                x2 = halved(x2)
            }
            if u.isLess(than: v, count: count) {
                v.subtract(u, count: count)
                x2 = (Residue(montgomery: x2) - Residue(montgomery: x1)).limbs
            } else {
                u.subtract(v, count: count)
                x1 = (Residue(montgomery: x1) - Residue(montgomery: x2)).limbs
            }
        }
        return u.isOne ? x1 : x2
    }

    /// x/2 mod M for x below M: x >> 1 when x is even, else (x + M) >> 1 (with its carry).
    @inline(__always)
    private static func halved(_ x: Limbs) -> Limbs {
        let count = M.wordCount
        var value = x
        var carry: UInt64 = 0
        if value.words.0 & 1 == 1 {
            let modulus = M.modulus
            for index in 0..<count { value[index] = addWithCarry(value[index], modulus[index], &carry) }
        }
        value.shiftRightOne(count: count)
        value[count - 1] |= carry << 63
        return value
    }
}

extension Limbs {
    /// Whether the value is 1.
    var isOne: Bool { words.0 == 1 && (words.1 | words.2 | words.3 | words.4 | words.5) == 0 }

    /// The first `count` words shifted right by one bit.
    @inline(__always)
    mutating func shiftRightOne(count: Int) {
        for index in 0..<count - 1 { self[index] = self[index] >> 1 | self[index + 1] << 63 }
        self[count - 1] >>= 1
    }

    /// self − other over the first `count` words (other not above self).
    @inline(__always)
    mutating func subtract(_ other: Limbs, count: Int) {
        var borrow: UInt64 = 0
        for index in 0..<count { self[index] = subtractWithBorrow(self[index], other[index], &borrow) }
    }
}
