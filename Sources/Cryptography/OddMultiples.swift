/// The odd multiples of a point P and of 2^h·P, 2^2h·P, …: a scalar split into `parts` pieces of
/// h bits, k = Σ k_j·2^(jh), gives k·P = Σ k_j·(2^(jh)·P), which takes h doublings instead of
/// the scalar's full bit length. Each piece's table holds P_j, 3P_j, 5P_j, …,
/// (2^(window−1) − 1)P_j in affine form: the entries a width-`window` NAF digit indexes (digit d
/// picks entry |d|/2, negated when d < 0).
struct SplitMultiples<C: WeierstrassCurve>: Sendable {
    /// The generator's tables are built once per process, so they can be wide and many: eight
    /// pieces of 32 bits (P-256) or 48 (P-384), 32 entries each.
    static var generatorWindow: Int { 7 }
    static var generatorParts: Int { 8 }

    let window: Int
    /// Pieces the scalar is split into.
    let parts: Int
    /// h: bits per piece (the last may be shorter).
    let partBits: Int
    /// Entries per piece: 2^(window−2).
    let tableSize: Int
    /// Piece j's table at `j·tableSize ..< (j + 1)·tableSize`.
    let points: [AffinePoint<C>]

    /// The tables of a finite point. Every entry is finite: the curve's order is a prime far
    /// larger than the multiples involved. Costs (parts − 1)·h doublings, the tables' additions,
    /// and one field inversion for all of them.
    init(of point: AffinePoint<C>, window: Int, parts: Int) {
        self.window = window
        self.parts = parts
        partBits = (C.scalarBitCount + parts - 1) / parts
        tableSize = 1 << (window - 2)
        var jacobian: [JacobianPoint<C>] = []
        jacobian.reserveCapacity(parts * tableSize)
        var base = JacobianPoint(point)
        for part in 0..<parts {
            if part > 0 { for _ in 0..<partBits { base = base.doubled } }
            let twice = base.doubled
            jacobian.append(base)
            for _ in 1..<tableSize { jacobian.append(jacobian[jacobian.count - 1].adding(twice)) }
        }
        points = Self.affine(jacobian)
    }

    /// The affine forms of finite points, with one inversion for all of them (Montgomery's
    /// trick): prefix products of the Zs, invert the last, then walk back.
    private static func affine(_ jacobian: [JacobianPoint<C>]) -> [AffinePoint<C>] {
        let count = jacobian.count
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
        return affine
    }
}

/// The width-`window` non-adjacent form of bits `start ..< start + count` of `scalar`: digits,
/// least significant first, each zero or odd with absolute value below 2^(window−1), such that
/// Σ digit·2^i equals those bits' value. `digits` must hold `count + 1` entries.
///
/// Works a digit at a time rather than a bit at a time: strip the trailing zeros, take the low
/// `window` bits as a signed digit, subtract it (which clears them), repeat.
func writeNonAdjacentForm(of scalar: Limbs, bits start: Int, count: Int, window: Int, into digits: UnsafeMutableBufferPointer<Int32>) {
    for index in 0...count { digits[index] = 0 }
    var value = scalar.bits(start, count: count)
    let mask = UInt64(1) << UInt64(window) - 1
    let half = Int64(1) << Int64(window - 1)
    var position = 0
    while !value.isZero {
        let zeros = value.trailingZeroBitCount
        value.shiftRightWide(zeros)
        position += zeros
        var digit = Int64(value.words.0 & mask)
        if digit >= half {
            digit -= Int64(1) << Int64(window)
            value.addSmall(UInt64(-digit))
        } else {
            value.subtractSmall(UInt64(digit))
        }
        digits[position] = Int32(digit)
    }
}

extension Limbs {
    /// Bits `start ..< start + count` as a number.
    func bits(_ start: Int, count: Int) -> Limbs {
        var result = Limbs()
        let firstWord = start >> 6, offset = start & 63
        for index in 0..<6 - firstWord {
            var word = self[firstWord + index] >> UInt64(offset)
            if offset > 0, firstWord + index + 1 < 6 { word |= self[firstWord + index + 1] << UInt64(64 - offset) }
            result[index] = word
        }
        // Keep the low `count` bits.
        for index in 0..<6 {
            let low = index * 64
            if low >= count {
                result[index] = 0
            } else if count - low < 64 {
                result[index] &= (UInt64(1) << UInt64(count - low)) - 1
            }
        }
        return result
    }

    /// The number of trailing zero bits (the value is nonzero).
    var trailingZeroBitCount: Int {
        for index in 0..<6 where self[index] != 0 { return index * 64 + self[index].trailingZeroBitCount }
        return 384
    }

    /// All six words shifted right by `shift` bits (any shift).
    mutating func shiftRightWide(_ shift: Int) {
        let wordShift = shift >> 6, bitShift = UInt64(shift & 63)
        for index in 0..<6 {
            let source = index + wordShift
            var word: UInt64 = source < 6 ? self[source] >> bitShift : 0
            if bitShift > 0, source + 1 < 6 { word |= self[source + 1] << (64 - bitShift) }
            self[index] = word
        }
    }

    /// self + small, carried through the six words (the sum must fit them).
    mutating func addSmall(_ small: UInt64) {
        var carry = small
        for index in 0..<6 where carry != 0 {
            let (sum, overflow) = self[index].addingReportingOverflow(carry)
            self[index] = sum
            carry = overflow ? 1 : 0
        }
    }

    /// self − small, borrowed through the six words (small must not exceed self).
    mutating func subtractSmall(_ small: UInt64) {
        var borrow = small
        for index in 0..<6 where borrow != 0 {
            let (difference, overflow) = self[index].subtractingReportingOverflow(borrow)
            self[index] = difference
            borrow = overflow ? 1 : 0
        }
    }
}

extension JacobianPoint {
    /// u1·G + u2·Q by interleaving (Straus): one chain of doublings as long as the longer piece,
    /// the digits of each piece of each scalar added from its table. `u1` and `u2` are below
    /// the group order.
    static func combination(_ u1: Limbs, generator: SplitMultiples<C>, _ u2: Limbs, key: SplitMultiples<C>) -> JacobianPoint {
        let length = max(generator.partBits, key.partBits) + 1
        let pieces = generator.parts + key.parts
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: pieces * length) { digits in
            digits.initialize(repeating: 0)
            /// Writes the NAF of each piece of `scalar` (its piece j in rows `first + j`).
            func split(_ scalar: Limbs, _ tables: SplitMultiples<C>, first: Int) {
                for part in 0..<tables.parts {
                    let start = part * tables.partBits
                    let count = min(tables.partBits, C.scalarBitCount - start)
                    let row = UnsafeMutableBufferPointer(rebasing: digits[(first + part) * length..<(first + part) * length + count + 1])
                    writeNonAdjacentForm(of: scalar, bits: start, count: count, window: tables.window, into: row)
                }
            }
            split(u1, generator, first: 0)
            split(u2, key, first: generator.parts)
            return generator.points.withUnsafeBufferPointer { generatorPoints in
                key.points.withUnsafeBufferPointer { keyPoints in
                    var result = JacobianPoint.infinity
                    for index in stride(from: length - 1, through: 0, by: -1) {
                        if !result.isInfinity { result = result.doubled }
                        for piece in 0..<pieces {
                            let digit = digits[piece * length + index]
                            if digit == 0 { continue }
                            let (table, part) = piece < generator.parts ? (generatorPoints, piece) : (keyPoints, piece - generator.parts)
                            let tableSize = piece < generator.parts ? generator.tableSize : key.tableSize
                            let entry = table[part * tableSize + Int(digit > 0 ? digit : -digit) >> 1]
                            result = result.adding(digit > 0 ? entry : entry.negated)
                        }
                    }
                    return result
                }
            }
        }
    }
}
