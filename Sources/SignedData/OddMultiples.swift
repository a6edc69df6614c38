/// P, 3P, 5P, …, (2^(window−1) − 1)P in affine form: the table a width-`window` NAF digit
/// indexes (digit d picks entry |d|/2, negated when d < 0).
struct OddMultiples<C: WeierstrassCurve>: Sendable {
    let window: Int
    let points: [AffinePoint<C>]

    /// The table of a finite point `base`. Every entry is finite: the curve's order is a prime
    /// far larger than the multiples involved.
    init(of base: JacobianPoint<C>, window: Int) {
        self.window = window
        let count = 1 << (window - 2)
        var jacobian: [JacobianPoint<C>] = [base]
        jacobian.reserveCapacity(count)
        let twice = base.doubled
        while jacobian.count < count { jacobian.append(jacobian[jacobian.count - 1].adding(twice)) }
        // One inversion for all of them (Montgomery's trick): prefix products of the Zs, invert
        // the last, then walk back.
        var prefix: [Residue<C.Field>] = []
        prefix.reserveCapacity(count)
        var product = Residue<C.Field>.one
        for point in jacobian {
            product = product * point.z
            prefix.append(product)
        }
        var inverse = product.inverse
        var affine = [AffinePoint<C>](repeating: AffinePoint(x: .zero, y: .zero), count: count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let zInverse = index == 0 ? inverse : inverse * prefix[index - 1]
            inverse = inverse * jacobian[index].z
            let zInverse2 = zInverse.squared
            affine[index] = AffinePoint(x: jacobian[index].x * zInverse2, y: jacobian[index].y * zInverse2 * zInverse)
        }
        points = affine
    }

    /// digit·P for an odd digit with |digit| < 2^(window−1).
    @inline(__always)
    func multiple(_ digit: Int32) -> AffinePoint<C> {
        digit > 0 ? points[Int(digit >> 1)] : points[Int((-digit) >> 1)].negated
    }
}

/// The odd multiples of P and of 2^h·P, h half the scalar's bits: k·P is then
/// k_low·P + k_high·(2^h·P), which takes h doublings instead of 2h.
struct SplitMultiples<C: WeierstrassCurve>: Sendable {
    /// The generator's tables are built once per process, so they can be wide.
    static var generatorWindow: Int { 7 }
    /// A public key's tables are built once per key.
    static var keyWindow: Int { 5 }
    /// h: the bit where a scalar is split.
    static var splitBit: Int { C.scalarBitCount / 2 }

    let low: OddMultiples<C>
    let high: OddMultiples<C>

    /// The tables of a finite point (costs h doublings and two tables: about one verification).
    init(of point: AffinePoint<C>, window: Int) {
        low = OddMultiples(of: JacobianPoint(point), window: window)
        var shifted = JacobianPoint(point)
        for _ in 0..<Self.splitBit { shifted = shifted.doubled }
        high = OddMultiples(of: shifted, window: window)
    }
}

/// The width-`window` non-adjacent form of bits `start ..< start + count` of `scalar`: digits,
/// least significant first, each zero or odd with absolute value below 2^(window−1), such that
/// Σ digit·2^i equals those bits' value. `digits` must hold `count + 1` entries.
func writeNonAdjacentForm(of scalar: Limbs, bits start: Int, count: Int, window: Int, into digits: UnsafeMutableBufferPointer<Int32>) {
    let length = count + 1
    for index in 0..<length { digits[index] = 0 }
    /// Bit `index` of the part (zero from `count` up).
    func bit(_ index: Int) -> Int32 { index < count && scalar.bit(start + index) ? 1 : 0 }
    var carry: Int32 = 0
    var position = 0
    while position < length {
        if bit(position) == carry {
            position += 1
            continue
        }
        let width = min(window, length - position)
        var word = carry
        for offset in 0..<width { word += bit(position + offset) << Int32(offset) }
        carry = (word >> Int32(window - 1)) & 1
        word -= carry << Int32(window)
        digits[position] = word
        position += width
    }
}

extension JacobianPoint {
    /// u1·G + u2·Q by interleaving (Straus): one chain of h doublings, the digits of each half
    /// of each scalar added from its table. `u1` and `u2` are below the group order.
    static func combination(_ u1: Limbs, generator: SplitMultiples<C>, _ u2: Limbs, key: SplitMultiples<C>) -> JacobianPoint {
        let split = SplitMultiples<C>.splitBit
        let highCount = C.scalarBitCount - split
        let length = max(split, highCount) + 1
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4 * length) { buffer in
            func part(_ index: Int) -> UnsafeMutableBufferPointer<Int32> {
                UnsafeMutableBufferPointer(rebasing: buffer[index * length..<(index + 1) * length])
            }
            let (g0, g1, q0, q1) = (part(0), part(1), part(2), part(3))
            for part in [g0, g1, q0, q1] { part.initialize(repeating: 0) }
            writeNonAdjacentForm(of: u1, bits: 0, count: split, window: generator.low.window, into: g0)
            writeNonAdjacentForm(of: u1, bits: split, count: highCount, window: generator.high.window, into: g1)
            writeNonAdjacentForm(of: u2, bits: 0, count: split, window: key.low.window, into: q0)
            writeNonAdjacentForm(of: u2, bits: split, count: highCount, window: key.high.window, into: q1)
            var result = JacobianPoint.infinity
            for index in stride(from: length - 1, through: 0, by: -1) {
                if !result.isInfinity { result = result.doubled }
                if g0[index] != 0 { result = result.adding(generator.low.multiple(g0[index])) }
                if g1[index] != 0 { result = result.adding(generator.high.multiple(g1[index])) }
                if q0[index] != 0 { result = result.adding(key.low.multiple(q0[index])) }
                if q1[index] != 0 { result = result.adding(key.high.multiple(q1[index])) }
            }
            return result
        }
    }
}
