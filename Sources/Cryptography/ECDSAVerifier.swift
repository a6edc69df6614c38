/// ECDSA verification (FIPS 186-4 §6.4 / SEC 1 §4.1.4) on curve `C` with a decoded key.
struct ECDSAVerifier<C: WeierstrassCurve>: Sendable {
    /// The key's odd multiples, built once so each verification only adds.
    let keyMultiples: SplitMultiples<C>

    /// `window` and `parts`: the width of the key's tables and the pieces its scalar is split
    /// into (see ``SplitMultiples``).
    init(key: AffinePoint<C>, window: Int, parts: Int) {
        keyMultiples = SplitMultiples(of: key, window: window, parts: parts)
    }

    /// The key point Q from `0x04 || X || Y`.
    static func decodePoint(_ bytes: [UInt8]) throws(SignatureError) -> AffinePoint<C> {
        let width = C.byteCount
        guard bytes.count == 1 + 2 * width, bytes[0] == 0x04 else { throw .malformedPublicKey }
        let (x, y) = bytes.withUnsafeBufferPointer { buffer in
            (Limbs(bigEndian: UnsafeBufferPointer(rebasing: buffer[1..<1 + width]), count: C.Field.wordCount),
             Limbs(bigEndian: UnsafeBufferPointer(rebasing: buffer[1 + width..<1 + 2 * width]), count: C.Field.wordCount))
        }
        guard let xResidue = Residue<C.Field>(canonical: x), let yResidue = Residue<C.Field>(canonical: y) else {
            throw .coordinateOutOfRange
        }
        let point = AffinePoint<C>(x: xResidue, y: yResidue)
        guard point.isOnCurve else { throw .pointNotOnCurve }
        return point
    }

    /// Whether (r, s), each `C.byteCount` big-endian bytes, signs `digest`.
    func isValid(_ signature: ECDSASignatureEncoding.Components, digest: [UInt8]) -> Bool {
        let width = C.byteCount
        let count = C.Order.wordCount
        let order = C.Order.modulus
        let (r, s) = (signature.r.withUnsafeBufferPointer { Limbs(bigEndian: $0, count: count) },
                      signature.s.withUnsafeBufferPointer { Limbs(bigEndian: $0, count: count) })
        // 1 ≤ r, s < n.
        guard !r.isZero, !s.isZero, r.isLess(than: order, count: count), s.isLess(than: order, count: count) else { return false }
        // e: the digest's leftmost bits, as many as the order has (its bit length is a whole
        // number of bytes on both curves); a shorter digest is taken whole. Then e mod n: e is
        // below 2^bits < 2n, so one subtraction at most.
        let leading = Array(digest.prefix(width))
        let padded = [UInt8](repeating: 0, count: width - leading.count) + leading
        var e = padded.withUnsafeBufferPointer { Limbs(bigEndian: $0, count: count) }
        if !e.isLess(than: order, count: count) {
            e = (Residue<C.Order>(montgomery: e) - Residue<C.Order>(montgomery: order)).limbs
        }
        // w = s⁻¹ in Montgomery form; a Montgomery product of an ordinary value with it gives
        // the ordinary product: u1 = e·w, u2 = r·w (mod n).
        let w = Residue<C.Order>(canonical: s)!.inverse
        let u1 = (Residue<C.Order>(montgomery: e) * w).limbs
        let u2 = (Residue<C.Order>(montgomery: r) * w).limbs
        let point = JacobianPoint<C>.combination(u1, generator: C.generatorMultiples, u2, key: keyMultiples)
        guard !point.isInfinity else { return false }
        // x(point) mod n == r, without an inversion: x = X/Z², and x mod n = r means x = r or
        // x = r + n (only when r + n < p, since x < p).
        let zz = point.z.squared
        if Residue<C.Field>(canonical: r)! * zz == point.x { return true }
        var carry = false
        var rPlusN = Limbs()
        for index in 0..<count {
            let (partial, overflow1) = r[index].addingReportingOverflow(order[index])
            let (total, overflow2) = partial.addingReportingOverflow(carry ? 1 : 0)
            rPlusN[index] = total
            carry = overflow1 || overflow2
        }
        guard !carry, let candidate = Residue<C.Field>(canonical: rPlusN) else { return false }
        return candidate * zz == point.x
    }
}
