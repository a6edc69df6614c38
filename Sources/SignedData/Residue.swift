/// A number modulo `M` in Montgomery form (x·R mod M, R = 2^(64·wordCount)), always fully
/// reduced, so two residues are equal exactly when their words are. Arithmetic is variable time:
/// only public data (signatures, keys, digests) passes through it.
struct Residue<M: MontgomeryModulus>: Equatable, Sendable {
    /// The Montgomery form's words (below the modulus).
    var limbs: Limbs

    /// A residue whose Montgomery form is `limbs` (which must be below the modulus).
    @inline(__always)
    init(montgomery limbs: Limbs) { self.limbs = limbs }

    /// The residue of `value`, or nil when `value` is not below the modulus.
    init?(canonical value: Limbs) {
        guard value.isLess(than: M.modulus, count: M.wordCount) else { return nil }
        limbs = Self.montgomeryProduct(value, M.rSquared)
    }

    /// The ordinary value (below the modulus).
    var canonical: Limbs { Self.montgomeryProduct(limbs, Limbs(1)) }

    static var zero: Residue { Residue(montgomery: .zero) }
    static var one: Residue { Residue(montgomery: montgomeryProduct(Limbs(1), M.rSquared)) }

    var isZero: Bool { limbs.isZero }

    @inline(__always)
    static func * (lhs: Residue, rhs: Residue) -> Residue {
        Residue(montgomery: montgomeryProduct(lhs.limbs, rhs.limbs))
    }

    @inline(__always)
    var squared: Residue { self * self }

    @inline(__always)
    static func + (lhs: Residue, rhs: Residue) -> Residue {
        let count = M.wordCount
        var sum = Limbs()
        var carry = false
        for index in 0..<count {
            let (partial, overflow1) = lhs.limbs[index].addingReportingOverflow(rhs.limbs[index])
            let (total, overflow2) = partial.addingReportingOverflow(carry ? 1 : 0)
            sum[index] = total
            carry = overflow1 || overflow2
        }
        return Residue(montgomery: subtractModulusIfNeeded(sum, carry: carry))
    }

    @inline(__always)
    static func - (lhs: Residue, rhs: Residue) -> Residue {
        let count = M.wordCount
        var difference = Limbs()
        var borrow = false
        for index in 0..<count {
            let (partial, overflow1) = lhs.limbs[index].subtractingReportingOverflow(rhs.limbs[index])
            let (total, overflow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
            difference[index] = total
            borrow = overflow1 || overflow2
        }
        guard borrow else { return Residue(montgomery: difference) }
        let modulus = M.modulus
        var carry = false
        for index in 0..<count {
            let (partial, overflow1) = difference[index].addingReportingOverflow(modulus[index])
            let (total, overflow2) = partial.addingReportingOverflow(carry ? 1 : 0)
            difference[index] = total
            carry = overflow1 || overflow2
        }
        return Residue(montgomery: difference)
    }

    @inline(__always)
    var doubled: Residue { self + self }

    var negated: Residue { .zero - self }

    /// self^(M − 2): the inverse when M is prime and self is not zero (zero gives zero).
    var inverse: Residue {
        // Fixed 4-bit windows over the exponent, most significant first.
        var powers = [Residue](repeating: .one, count: 16)
        for index in 1..<16 { powers[index] = powers[index - 1] * self }
        var exponent = M.modulus
        exponent[0] -= 2  // the modulus is odd and above 2: no borrow
        var result = Residue.one
        var started = false
        for window in stride(from: M.wordCount * 16 - 1, through: 0, by: -1) {
            if started { result = result.squared.squared.squared.squared }
            let digit = Int((exponent[window >> 4] >> UInt64((window & 15) * 4)) & 15)
            if digit != 0 {
                result = started ? result * powers[digit] : powers[digit]
                started = true
            }
        }
        return result
    }

    /// a·b·R⁻¹ mod M (coarsely integrated operand scanning); a and b below the modulus.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs) -> Limbs {
        let count = M.wordCount
        let modulus = M.modulus
        let inverseNegated = M.inverseNegated
        var t = Limbs()
        var top: UInt64 = 0
        for i in 0..<count {
            let bi = b[i]
            var carry: UInt64 = 0
            for j in 0..<count {
                let (high, low) = a[j].multipliedFullWidth(by: bi)
                let (sum1, overflow1) = low.addingReportingOverflow(t[j])
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                t[j] = sum2
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            let (topSum, topOverflow) = top.addingReportingOverflow(carry)
            let extra: UInt64 = topOverflow ? 1 : 0
            let m = t[0] &* inverseNegated
            let (high0, low0) = m.multipliedFullWidth(by: modulus[0])
            let (_, overflow0) = low0.addingReportingOverflow(t[0])
            carry = high0 &+ (overflow0 ? 1 : 0)
            for j in 1..<count {
                let (high, low) = m.multipliedFullWidth(by: modulus[j])
                let (sum1, overflow1) = low.addingReportingOverflow(t[j])
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                t[j - 1] = sum2
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            let (last, lastOverflow) = topSum.addingReportingOverflow(carry)
            t[count - 1] = last
            top = extra &+ (lastOverflow ? 1 : 0)
        }
        return subtractModulusIfNeeded(t, carry: top != 0)
    }

    /// value + carry·R reduced once: the result of a sum or product known to be below 2·M.
    @inline(__always)
    static func subtractModulusIfNeeded(_ value: Limbs, carry: Bool) -> Limbs {
        let count = M.wordCount
        let modulus = M.modulus
        var difference = Limbs()
        var borrow = false
        for index in 0..<count {
            let (partial, overflow1) = value[index].subtractingReportingOverflow(modulus[index])
            let (total, overflow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
            difference[index] = total
            borrow = overflow1 || overflow2
        }
        return carry || !borrow ? difference : value
    }
}
