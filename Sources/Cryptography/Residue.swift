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
        Residue(montgomery: Multiword.add(lhs.limbs, rhs.limbs, modulus: M.modulus, count: M.wordCount))
    }

    @inline(__always)
    static func - (lhs: Residue, rhs: Residue) -> Residue {
        Residue(montgomery: Multiword.subtract(lhs.limbs, rhs.limbs, modulus: M.modulus, count: M.wordCount))
    }

    @inline(__always)
    var doubled: Residue { self + self }

    var negated: Residue { .zero - self }

    /// a·b·R⁻¹ mod M; a and b below the modulus.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs) -> Limbs { M.montgomeryProduct(a, b) }
}
