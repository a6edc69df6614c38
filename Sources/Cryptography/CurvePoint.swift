/// A finite point (x, y) of curve `C`, coordinates in Montgomery form.
struct AffinePoint<C: WeierstrassCurve>: Sendable {
    var x: Residue<C.Field>
    var y: Residue<C.Field>

    init(x: Residue<C.Field>, y: Residue<C.Field>) {
        self.x = x
        self.y = y
    }

    /// Whether y² = x³ − 3x + b.
    var isOnCurve: Bool {
        let b = Residue<C.Field>(canonical: C.b)!
        let threeX = x.doubled + x
        return y.squared == x.squared * x - threeX + b
    }

    var negated: AffinePoint { AffinePoint(x: x, y: y.negated) }
}

/// A point of curve `C` in Jacobian coordinates: (X/Z², Y/Z³), the point at infinity when Z = 0.
/// Every operation handles the special cases (infinity, P + P, P + (−P)) exactly, because
/// interleaved multiplication by attacker-chosen scalars can reach them.
struct JacobianPoint<C: WeierstrassCurve>: Sendable {
    var x: Residue<C.Field>
    var y: Residue<C.Field>
    var z: Residue<C.Field>

    init(x: Residue<C.Field>, y: Residue<C.Field>, z: Residue<C.Field>) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ point: AffinePoint<C>) {
        self.init(x: point.x, y: point.y, z: .one)
    }

    static var infinity: JacobianPoint { JacobianPoint(x: .one, y: .one, z: .zero) }

    var isInfinity: Bool { z.isZero }

    var negated: JacobianPoint { JacobianPoint(x: x, y: y.negated, z: z) }

    /// The affine point, or nil at infinity (one field inversion).
    var affine: AffinePoint<C>? {
        guard !isInfinity else { return nil }
        let zInverse = z.inverse
        let zInverse2 = zInverse.squared
        return AffinePoint(x: x * zInverse2, y: y * zInverse2 * zInverse)
    }

    /// 2·self ("dbl-2001-b", a = −3): 3M + 5S. Infinity stays infinity.
    var doubled: JacobianPoint {
        let delta = z.squared
        let gamma = y.squared
        let beta = x * gamma
        let t = (x - delta) * (x + delta)
        let alpha = t.doubled + t
        let beta4 = beta.doubled.doubled
        let x3 = alpha.squared - beta4.doubled
        let z3 = (y + z).squared - gamma - delta
        let gamma2 = gamma.squared
        let y3 = alpha * (beta4 - x3) - gamma2.doubled.doubled.doubled
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + other for an affine other ("madd-2007-bl"): 7M + 4S.
    func adding(_ other: AffinePoint<C>) -> JacobianPoint {
        if isInfinity { return JacobianPoint(other) }
        let z1z1 = z.squared
        let u2 = other.x * z1z1
        let s2 = other.y * z * z1z1
        let h = u2 - x
        let r = (s2 - y).doubled
        if h.isZero { return r.isZero ? doubled : .infinity }
        let hh = h.squared
        let i = hh.doubled.doubled
        let j = h * i
        let v = x * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (y * j).doubled
        let z3 = (z + h).squared - z1z1 - hh
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + other ("add-2007-bl"): 11M + 5S.
    func adding(_ other: JacobianPoint) -> JacobianPoint {
        if isInfinity { return other }
        if other.isInfinity { return self }
        let z1z1 = z.squared
        let z2z2 = other.z.squared
        let u1 = x * z2z2
        let u2 = other.x * z1z1
        let s1 = y * other.z * z2z2
        let s2 = other.y * z * z1z1
        let h = u2 - u1
        let r = (s2 - s1).doubled
        if h.isZero { return r.isZero ? doubled : .infinity }
        let i = h.doubled.squared
        let j = h * i
        let v = u1 * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (s1 * j).doubled
        let z3 = ((z + other.z).squared - z1z1 - z2z2) * h
        return JacobianPoint(x: x3, y: y3, z: z3)
    }
}
