/// Multiword arithmetic modulo an odd `p` of `count` words (4 or 6, little-endian) on ``Limbs``:
/// the kernels under ``Residue``. Each `count` is a constant once ``Residue`` is specialised, so
/// the loops unroll and ``Limbs``' words stay in registers.
///
/// The word helpers below work on 128-bit integers, which the compiler turns into add-with-carry
/// and subtract-with-borrow, with no branch on the data.
enum Multiword {
    /// a·b·2^(−64·count) mod p for a, b < p (Montgomery multiplication, CIOS), k = −p⁻¹ mod 2⁶⁴.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs, modulus p: Limbs, k: UInt64, count: Int) -> Limbs {
        // For each word of b: t ← (t + a·bᵢ + m·p) / 2⁶⁴, m = t₀·k chosen so the division is exact.
        // t has count + 1 words: the low ones in `t`, the top one in `high`.
        var t = Limbs(), high: UInt64 = 0
        for i in 0..<count {
            let word = b[i]
            var carry: UInt64 = 0
            for j in 0..<count { t[j] = multiplyAccumulate(t[j], a[j], word, &carry) }
            var top: UInt64 = 0
            high = addWithCarry(high, carry, &top)
            let m = t[0] &* k
            carry = 0
            _ = multiplyAccumulate(t[0], m, p[0], &carry)
            for j in 1..<count { t[j - 1] = multiplyAccumulate(t[j], m, p[j], &carry) }
            var last: UInt64 = 0
            t[count - 1] = addWithCarry(high, carry, &last)
            high = top &+ last
        }
        return reduceOnce(t, carry: high, modulus: p, count: count)
    }

    /// value + carry·2^(64·count), less p once if that is not below p (the value is below 2p).
    @inline(__always)
    static func reduceOnce(_ value: Limbs, carry: UInt64, modulus p: Limbs, count: Int) -> Limbs {
        var difference = Limbs(), borrow: UInt64 = 0
        for j in 0..<count { difference[j] = subtractWithBorrow(value[j], p[j], &borrow) }
        _ = subtractWithBorrow(carry, 0, &borrow)
        let keep = 0 &- borrow  // all ones when value < p
        var result = Limbs()
        for j in 0..<count { result[j] = select(keep, value[j], difference[j]) }
        return result
    }

    /// a + b mod p for a, b < p.
    @inline(__always)
    static func add(_ a: Limbs, _ b: Limbs, modulus p: Limbs, count: Int) -> Limbs {
        var sum = Limbs(), carry: UInt64 = 0
        for j in 0..<count { sum[j] = addWithCarry(a[j], b[j], &carry) }
        return reduceOnce(sum, carry: carry, modulus: p, count: count)
    }

    /// a − b mod p for a, b < p.
    @inline(__always)
    static func subtract(_ a: Limbs, _ b: Limbs, modulus p: Limbs, count: Int) -> Limbs {
        var difference = Limbs(), borrow: UInt64 = 0
        for j in 0..<count { difference[j] = subtractWithBorrow(a[j], b[j], &borrow) }
        // Add p back when the difference went negative, without a branch (the sign is data).
        let mask = 0 &- borrow
        var result = Limbs(), carry: UInt64 = 0
        for j in 0..<count { result[j] = addWithCarry(difference[j], p[j] & mask, &carry) }
        return result
    }
}

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
