/// P, 3P, 5P, …, (2^(window−1) − 1)P in affine form: the table a width-`window` NAF digit
/// indexes (digit d picks entry |d|/2, negated when d < 0).
struct OddMultiples<C: WeierstrassCurve>: Sendable {
    /// The generator's table is built once per process, so it can be wide.
    static var generatorWindow: Int { 7 }
    /// A public key's table is built once per key.
    static var keyWindow: Int { 5 }

let window: Int
let points: [AffinePoint<C>]

    /// The table of a finite point `base`. Every entry is finite: the curve's order is a prime
    /// far larger than the multiples involved.
    init(of base: AffinePoint<C>, window: Int) {
        self.window = window
        let count = 1 << (window - 2)
        var jacobian: [JacobianPoint<C>] = [JacobianPoint(base)]
        jacobian.reserveCapacity(count)
        let twice = JacobianPoint(base).doubled
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
        var affine = [AffinePoint<C>](repeating: base, count: count)
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

/// The width-`window` non-adjacent form of `scalar` (bits below `bitCount`): digits, least
/// significant first, each zero or odd with absolute value below 2^(window−1), such that
/// Σ digit·2^i = scalar. `digits` must hold `bitCount + 1` entries.

func writeNonAdjacentForm(of scalar: Limbs, bitCount: Int, window: Int, into digits: UnsafeMutableBufferPointer<Int32>) {
    let length = bitCount + 1
    for index in 0..<length { digits[index] = 0 }
    /// `count` bits of the scalar from `start` (zero above `bitCount`).
    func bits(from start: Int, count: Int) -> Int32 {
        var value: UInt64 = 0
        for offset in 0..<count where start + offset < bitCount && scalar.bit(start + offset) {
            value |= 1 << UInt64(offset)
        }
        return Int32(value)
    }
    var carry: Int32 = 0
    var bit = 0
    while bit < length {
        let current: Int32 = bit < bitCount && scalar.bit(bit) ? 1 : 0
        if current == carry {
            bit += 1
            continue
        }
        let width = min(window, length - bit)
        var word = bits(from: bit, count: width) + carry
        carry = (word >> Int32(window - 1)) & 1
        word -= carry << Int32(window)
        digits[bit] = word
        bit += width
    }
}

extension JacobianPoint {
    /// u1·G + u2·Q by interleaving (Straus): one chain of doublings, each scalar's NAF digits
    /// added from its table. `u1` and `u2` are below the group order.
    static func combination(_ u1: Limbs, generator: OddMultiples<C>, _ u2: Limbs, key: OddMultiples<C>) -> JacobianPoint {
        let bitCount = C.byteCount * 8
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * (bitCount + 1)) { buffer in
            let first = UnsafeMutableBufferPointer(rebasing: buffer[0..<bitCount + 1])
            let second = UnsafeMutableBufferPointer(rebasing: buffer[bitCount + 1..<2 * (bitCount + 1)])
            writeNonAdjacentForm(of: u1, bitCount: bitCount, window: generator.window, into: first)
            writeNonAdjacentForm(of: u2, bitCount: bitCount, window: key.window, into: second)
            var result = JacobianPoint.infinity
            for index in stride(from: bitCount, through: 0, by: -1) {
                if !result.isInfinity { result = result.doubled }
                let d1 = first[index]
                if d1 != 0 { result = result.adding(generator.multiple(d1)) }
                let d2 = second[index]
                if d2 != 0 { result = result.adding(key.multiple(d2)) }
            }
            return result
        }
    }
}
