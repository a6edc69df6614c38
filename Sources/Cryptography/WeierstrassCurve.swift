/// A prime-order short Weierstrass curve y² = x³ − 3x + b over a prime field (P-256 and P-384):
/// its field, its group order, and its constants in ordinary (canonical) form.
protocol WeierstrassCurve {
    associatedtype Field: MontgomeryModulus
    associatedtype Order: MontgomeryModulus
    /// Bytes of a coordinate, of a scalar and of each half of a raw signature.
    static var byteCount: Int { get }
    static var b: Limbs { get }
    static var generatorX: Limbs { get }
    static var generatorY: Limbs { get }
    /// The generator's precomputed multiples, built on first use.
    static var generatorMultiples: SplitMultiples<Self> { get }
}

extension WeierstrassCurve {
    static var generator: AffinePoint<Self> {
        AffinePoint(x: Residue(canonical: generatorX)!, y: Residue(canonical: generatorY)!)
    }

    /// Bits of a scalar (the group order's bit length, a whole number of bytes on both curves).
    static var scalarBitCount: Int { byteCount * 8 }
}

enum P256: WeierstrassCurve {
    typealias Field = P256FieldPrime
    typealias Order = P256GroupOrder
    static var byteCount: Int { 32 }
    static var b: Limbs { Limbs(0x3bce3c3e27d2604b, 0x651d06b0cc53b0f6, 0xb3ebbd55769886bc, 0x5ac635d8aa3a93e7) }
    static var generatorX: Limbs { Limbs(0xf4a13945d898c296, 0x77037d812deb33a0, 0xf8bce6e563a440f2, 0x6b17d1f2e12c4247) }
    static var generatorY: Limbs { Limbs(0xcbb6406837bf51f5, 0x2bce33576b315ece, 0x8ee7eb4a7c0f9e16, 0x4fe342e2fe1a7f9b) }
    static let generatorMultiples = SplitMultiples<P256>(
        of: generator, window: SplitMultiples<P256>.generatorWindow, parts: SplitMultiples<P256>.generatorParts)
}

enum P384: WeierstrassCurve {
    typealias Field = P384FieldPrime
    typealias Order = P384GroupOrder
    static var byteCount: Int { 48 }
    static var b: Limbs {
        Limbs(0x2a85c8edd3ec2aef, 0xc656398d8a2ed19d, 0x0314088f5013875a, 0x181d9c6efe814112, 0x988e056be3f82d19, 0xb3312fa7e23ee7e4)
    }
    static var generatorX: Limbs {
        Limbs(0x3a545e3872760ab7, 0x5502f25dbf55296c, 0x59f741e082542a38, 0x6e1d3b628ba79b98, 0x8eb1c71ef320ad74, 0xaa87ca22be8b0537)
    }
    static var generatorY: Limbs {
        Limbs(0x7a431d7c90ea0e5f, 0x0a60b1ce1d7e819d, 0xe9da3113b5f0b8c0, 0xf8f41dbd289a147c, 0x5d9e98bf9292dc29, 0x3617de4a96262c6f)
    }
    static let generatorMultiples = SplitMultiples<P384>(
        of: generator, window: SplitMultiples<P384>.generatorWindow, parts: SplitMultiples<P384>.generatorParts)
}
