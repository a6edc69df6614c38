/// Straight-line multiword arithmetic on 4 and 6 words (little-endian), the kernels under
/// ``Residue``. Written out word by word rather than as loops: the optimiser then keeps every
/// word in a register, where loops over a tuple left it spilling and branching.

// Each helper is written on 128-bit integers, which the compiler turns into add-with-carry and
// subtract-with-borrow instructions. Spelled with overflow flags turned into 0 or 1, the carries
// became conditional jumps on data, mispredicted about half the time on real signatures (a
// benchmark repeating one signature trained the predictor and hid it); computed from the top
// bits of operands and results instead, they cost more instructions than the jumps did. The
// halves go in and out through `UInt128(_low:_high:)`, `_low` and `_high`: the generic integer
// conversions are not specialised in debug builds, where they made verification 4× slower.

/// acc + a·b + carry as (low word returned, high word into carry); never overflows 128 bits.
@inline(__always)
func multiplyAccumulate(_ acc: UInt64, _ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (high, low) = a.multipliedFullWidth(by: b)
    let sum = UInt128(_low: low, _high: high) &+ UInt128(_low: acc, _high: 0) &+ UInt128(_low: carry, _high: 0)
    carry = sum._high
    return sum._low
}

/// a + b + carry (carry 0 or 1), the carry out into carry.
@inline(__always)
func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let sum = UInt128(_low: a, _high: 0) &+ UInt128(_low: b, _high: 0) &+ UInt128(_low: carry, _high: 0)
    carry = sum._high
    return sum._low
}

/// a − b − borrow (borrow 0 or 1), the borrow out into borrow.
@inline(__always)
func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let difference = UInt128(_low: a, _high: 0) &- UInt128(_low: b, _high: 0) &- UInt128(_low: borrow, _high: 0)
    borrow = difference._high & 1
    return difference._low
}

/// `ifSet` where mask is all ones, `otherwise` where it is zero.
@inline(__always)
func select(_ mask: UInt64, _ ifSet: UInt64, _ otherwise: UInt64) -> UInt64 {
    (ifSet & mask) | (otherwise & ~mask)
}

enum FourWords {
    /// a·b·2⁻²⁵⁶ mod p for a, b < p (CIOS), k = −p⁻¹ mod 2⁶⁴.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs, modulus p: Limbs, k: UInt64) -> Limbs {
        // One row per word of b, written out (a helper function per row was not inlined):
        // t ← (t + a·bᵢ + m·p) / 2⁶⁴ with m = t₀·k chosen so the division is exact.
        var (t0, t1, t2, t3, t4): (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        var carry: UInt64 = 0, top: UInt64 = 0, m: UInt64 = 0
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.0, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.0, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.0, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.0, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        var last: UInt64 = 0
        t3 = addWithCarry(t4, carry, &last)
        t4 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.1, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.1, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.1, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.1, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        last = 0
        t3 = addWithCarry(t4, carry, &last)
        t4 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.2, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.2, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.2, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.2, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        last = 0
        t3 = addWithCarry(t4, carry, &last)
        t4 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.3, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.3, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.3, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.3, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        last = 0
        t3 = addWithCarry(t4, carry, &last)
        t4 = top &+ last
        return reduceOnce(Limbs(t0, t1, t2, t3), carry: t4, modulus: p)
    }

    /// a·b·2⁻²⁵⁶ mod p for P-256's prime p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1, a, b < p. Each
    /// reduction step adds m·p with shifts instead of multiplications: −p⁻¹ ≡ 1 (mod 2⁶⁴), so
    /// m is the low word itself, and (t + m·p)/2⁶⁴ = t/2⁶⁴ + m·2³² + m·(2⁶⁴ − 2³² + 1)·2¹²⁸.
    @inline(__always)
    static func montgomeryProductP256(_ a: Limbs, _ b: Limbs) -> Limbs {
        // One row per word of b, written out (a helper function per row was not inlined).
        var (t0, t1, t2, t3, t4): (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        var carry: UInt64 = 0, top: UInt64 = 0, m: UInt64 = 0, shifted: UInt64 = 0
        // t ← (t + a·b0 + m·p) / 2⁶⁴, m = the low word; m·(2⁶⁴ − 2³² + 1) as two words is
        // m·2⁶⁴ − ((m >> 32)·2⁶⁴ + (m << 32)) + m.
        carry = 0
        m = multiplyAccumulate(t0, a.words.0, b.words.0, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.0, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.0, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.0, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        shifted = m << 32
        carry = 0
        t0 = addWithCarry(t1, shifted, &carry)
        t1 = addWithCarry(t2, m >> 32, &carry)
        t2 = addWithCarry(t3, m &- shifted, &carry)
        t3 = addWithCarry(t4, m &- (m >> 32) &- (m < shifted ? 1 : 0), &carry)
        t4 = top &+ carry
        // t ← (t + a·b1 + m·p) / 2⁶⁴ as above.
        carry = 0
        m = multiplyAccumulate(t0, a.words.0, b.words.1, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.1, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.1, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.1, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        shifted = m << 32
        carry = 0
        t0 = addWithCarry(t1, shifted, &carry)
        t1 = addWithCarry(t2, m >> 32, &carry)
        t2 = addWithCarry(t3, m &- shifted, &carry)
        t3 = addWithCarry(t4, m &- (m >> 32) &- (m < shifted ? 1 : 0), &carry)
        t4 = top &+ carry
        // t ← (t + a·b2 + m·p) / 2⁶⁴ as above.
        carry = 0
        m = multiplyAccumulate(t0, a.words.0, b.words.2, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.2, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.2, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.2, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        shifted = m << 32
        carry = 0
        t0 = addWithCarry(t1, shifted, &carry)
        t1 = addWithCarry(t2, m >> 32, &carry)
        t2 = addWithCarry(t3, m &- shifted, &carry)
        t3 = addWithCarry(t4, m &- (m >> 32) &- (m < shifted ? 1 : 0), &carry)
        t4 = top &+ carry
        // t ← (t + a·b3 + m·p) / 2⁶⁴ as above.
        carry = 0
        m = multiplyAccumulate(t0, a.words.0, b.words.3, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.3, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.3, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.3, &carry)
        top = 0
        t4 = addWithCarry(t4, carry, &top)
        shifted = m << 32
        carry = 0
        t0 = addWithCarry(t1, shifted, &carry)
        t1 = addWithCarry(t2, m >> 32, &carry)
        t2 = addWithCarry(t3, m &- shifted, &carry)
        t3 = addWithCarry(t4, m &- (m >> 32) &- (m < shifted ? 1 : 0), &carry)
        t4 = top &+ carry
        return reduceOnce(Limbs(t0, t1, t2, t3), carry: t4, modulus: P256FieldPrime.modulus)
    }

    /// value + carry·2²⁵⁶, less p once if that is not below p (the value is below 2p).
    @inline(__always)
    static func reduceOnce(_ value: Limbs, carry: UInt64, modulus p: Limbs) -> Limbs {
        var borrow: UInt64 = 0
        let d0 = subtractWithBorrow(value.words.0, p.words.0, &borrow)
        let d1 = subtractWithBorrow(value.words.1, p.words.1, &borrow)
        let d2 = subtractWithBorrow(value.words.2, p.words.2, &borrow)
        let d3 = subtractWithBorrow(value.words.3, p.words.3, &borrow)
        let _ = subtractWithBorrow(carry, 0, &borrow)
        let keep = 0 &- borrow  // all ones when value < p
        return Limbs(select(keep, value.words.0, d0), select(keep, value.words.1, d1), select(keep, value.words.2, d2), select(keep, value.words.3, d3))
    }

    @inline(__always)
    static func add(_ a: Limbs, _ b: Limbs, modulus p: Limbs) -> Limbs {
        var carry: UInt64 = 0
        let s0 = addWithCarry(a.words.0, b.words.0, &carry)
        let s1 = addWithCarry(a.words.1, b.words.1, &carry)
        let s2 = addWithCarry(a.words.2, b.words.2, &carry)
        let s3 = addWithCarry(a.words.3, b.words.3, &carry)
        return reduceOnce(Limbs(s0, s1, s2, s3), carry: carry, modulus: p)
    }

    @inline(__always)
    static func subtract(_ a: Limbs, _ b: Limbs, modulus p: Limbs) -> Limbs {
        var borrow: UInt64 = 0
        let d0 = subtractWithBorrow(a.words.0, b.words.0, &borrow)
        let d1 = subtractWithBorrow(a.words.1, b.words.1, &borrow)
        let d2 = subtractWithBorrow(a.words.2, b.words.2, &borrow)
        let d3 = subtractWithBorrow(a.words.3, b.words.3, &borrow)
        // Add p back when the difference went negative, without a branch (the sign is data).
        let mask = 0 &- borrow
        var carry: UInt64 = 0
        let s0 = addWithCarry(d0, p.words.0 & mask, &carry)
        let s1 = addWithCarry(d1, p.words.1 & mask, &carry)
        let s2 = addWithCarry(d2, p.words.2 & mask, &carry)
        let s3 = addWithCarry(d3, p.words.3 & mask, &carry)
        return Limbs(s0, s1, s2, s3)
    }
}

enum SixWords {
    /// a·b·2⁻³⁸⁴ mod p for a, b < p (CIOS), k = −p⁻¹ mod 2⁶⁴.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs, modulus p: Limbs, k: UInt64) -> Limbs {
        // One row per word of b, written out (a helper function per row was not inlined):
        // t ← (t + a·bᵢ + m·p) / 2⁶⁴ with m = t₀·k chosen so the division is exact.
        var (t0, t1, t2, t3, t4, t5, t6): (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
        var carry: UInt64 = 0, top: UInt64 = 0, m: UInt64 = 0
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.0, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.0, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.0, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.0, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.0, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.0, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        var last: UInt64 = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.1, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.1, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.1, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.1, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.1, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.1, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        last = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.2, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.2, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.2, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.2, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.2, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.2, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        last = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.3, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.3, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.3, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.3, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.3, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.3, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        last = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.4, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.4, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.4, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.4, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.4, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.4, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        last = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        carry = 0
        t0 = multiplyAccumulate(t0, a.words.0, b.words.5, &carry)
        t1 = multiplyAccumulate(t1, a.words.1, b.words.5, &carry)
        t2 = multiplyAccumulate(t2, a.words.2, b.words.5, &carry)
        t3 = multiplyAccumulate(t3, a.words.3, b.words.5, &carry)
        t4 = multiplyAccumulate(t4, a.words.4, b.words.5, &carry)
        t5 = multiplyAccumulate(t5, a.words.5, b.words.5, &carry)
        top = 0
        t6 = addWithCarry(t6, carry, &top)
        m = t0 &* k
        carry = 0
        _ = multiplyAccumulate(t0, m, p.words.0, &carry)
        t0 = multiplyAccumulate(t1, m, p.words.1, &carry)
        t1 = multiplyAccumulate(t2, m, p.words.2, &carry)
        t2 = multiplyAccumulate(t3, m, p.words.3, &carry)
        t3 = multiplyAccumulate(t4, m, p.words.4, &carry)
        t4 = multiplyAccumulate(t5, m, p.words.5, &carry)
        last = 0
        t5 = addWithCarry(t6, carry, &last)
        t6 = top &+ last
        return reduceOnce(Limbs(t0, t1, t2, t3, t4, t5), carry: t6, modulus: p)
    }

    /// value + carry·2³⁸⁴, less p once if that is not below p (the value is below 2p).
    @inline(__always)
    static func reduceOnce(_ value: Limbs, carry: UInt64, modulus p: Limbs) -> Limbs {
        var borrow: UInt64 = 0
        let d0 = subtractWithBorrow(value.words.0, p.words.0, &borrow)
        let d1 = subtractWithBorrow(value.words.1, p.words.1, &borrow)
        let d2 = subtractWithBorrow(value.words.2, p.words.2, &borrow)
        let d3 = subtractWithBorrow(value.words.3, p.words.3, &borrow)
        let d4 = subtractWithBorrow(value.words.4, p.words.4, &borrow)
        let d5 = subtractWithBorrow(value.words.5, p.words.5, &borrow)
        let _ = subtractWithBorrow(carry, 0, &borrow)
        let keep = 0 &- borrow  // all ones when value < p
        return Limbs(
            select(keep, value.words.0, d0), select(keep, value.words.1, d1), select(keep, value.words.2, d2),
            select(keep, value.words.3, d3), select(keep, value.words.4, d4), select(keep, value.words.5, d5))
    }

    @inline(__always)
    static func add(_ a: Limbs, _ b: Limbs, modulus p: Limbs) -> Limbs {
        var carry: UInt64 = 0
        let s0 = addWithCarry(a.words.0, b.words.0, &carry)
        let s1 = addWithCarry(a.words.1, b.words.1, &carry)
        let s2 = addWithCarry(a.words.2, b.words.2, &carry)
        let s3 = addWithCarry(a.words.3, b.words.3, &carry)
        let s4 = addWithCarry(a.words.4, b.words.4, &carry)
        let s5 = addWithCarry(a.words.5, b.words.5, &carry)
        return reduceOnce(Limbs(s0, s1, s2, s3, s4, s5), carry: carry, modulus: p)
    }

    @inline(__always)
    static func subtract(_ a: Limbs, _ b: Limbs, modulus p: Limbs) -> Limbs {
        var borrow: UInt64 = 0
        let d0 = subtractWithBorrow(a.words.0, b.words.0, &borrow)
        let d1 = subtractWithBorrow(a.words.1, b.words.1, &borrow)
        let d2 = subtractWithBorrow(a.words.2, b.words.2, &borrow)
        let d3 = subtractWithBorrow(a.words.3, b.words.3, &borrow)
        let d4 = subtractWithBorrow(a.words.4, b.words.4, &borrow)
        let d5 = subtractWithBorrow(a.words.5, b.words.5, &borrow)
        // Add p back when the difference went negative, without a branch (the sign is data).
        let mask = 0 &- borrow
        var carry: UInt64 = 0
        let s0 = addWithCarry(d0, p.words.0 & mask, &carry)
        let s1 = addWithCarry(d1, p.words.1 & mask, &carry)
        let s2 = addWithCarry(d2, p.words.2 & mask, &carry)
        let s3 = addWithCarry(d3, p.words.3 & mask, &carry)
        let s4 = addWithCarry(d4, p.words.4 & mask, &carry)
        let s5 = addWithCarry(d5, p.words.5 & mask, &carry)
        return Limbs(s0, s1, s2, s3, s4, s5)
    }
}
