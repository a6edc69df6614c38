/// An odd modulus of 4 or 6 words with the constants Montgomery multiplication needs; the two
/// curves' field primes and group orders conform. Each requirement is a literal, so a specialised
/// multiplication sees constants.
protocol MontgomeryModulus {
    /// Words in use: 4 for a 256-bit modulus, 6 for a 384-bit one.
    static var wordCount: Int { get }
    /// The modulus itself (its top word is nonzero).
    static var modulus: Limbs { get }
    /// −modulus⁻¹ mod 2⁶⁴.
    static var inverseNegated: UInt64 { get }
    /// R² mod modulus, R = 2^(64·wordCount): multiplying by it enters the Montgomery domain.
    static var rSquared: Limbs { get }
}

extension MontgomeryModulus {
    /// a·b·R⁻¹ mod modulus for a, b below it.
    @inline(__always)
    static func montgomeryProduct(_ a: Limbs, _ b: Limbs) -> Limbs {
        Multiword.montgomeryProduct(a, b, modulus: modulus, k: inverseNegated, count: wordCount)
    }
}

enum P256FieldPrime: MontgomeryModulus {
    static var wordCount: Int { 4 }
    static var modulus: Limbs { Limbs(0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_ffff, 0x0000_0000_0000_0000, 0xffff_ffff_0000_0001) }
    static var inverseNegated: UInt64 { 1 }
    static var rSquared: Limbs { Limbs(0x0000_0000_0000_0003, 0xffff_fffb_ffff_ffff, 0xffff_ffff_ffff_fffe, 0x0000_0004_ffff_fffd) }
}

enum P256GroupOrder: MontgomeryModulus {
    static var wordCount: Int { 4 }
    static var modulus: Limbs { Limbs(0xf3b9_cac2_fc63_2551, 0xbce6_faad_a717_9e84, 0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000) }
    static var inverseNegated: UInt64 { 0xccd1_c8aa_ee00_bc4f }
    static var rSquared: Limbs { Limbs(0x8324_4c95_be79_eea2, 0x4699_799c_49bd_6fa6, 0x2845_b239_2b6b_ec59, 0x66e1_2d94_f3d9_5620) }
}

enum P384FieldPrime: MontgomeryModulus {
    static var wordCount: Int { 6 }
    static var modulus: Limbs {
        Limbs(0x0000_0000_ffff_ffff, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_fffe, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff)
    }
    static var inverseNegated: UInt64 { 0x0000_0001_0000_0001 }
    static var rSquared: Limbs {
        Limbs(0xffff_fffe_0000_0001, 0x0000_0002_0000_0000, 0xffff_fffe_0000_0000, 0x0000_0002_0000_0000, 0x0000_0000_0000_0001, 0x0000_0000_0000_0000)
    }
}

enum P384GroupOrder: MontgomeryModulus {
    static var wordCount: Int { 6 }
    static var modulus: Limbs {
        Limbs(0xecec_196a_ccc5_2973, 0x581a_0db2_48b0_a77a, 0xc763_4d81_f437_2ddf, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff)
    }
    static var inverseNegated: UInt64 { 0x6ed4_6089_e88f_dc45 }
    static var rSquared: Limbs {
        Limbs(0x2d31_9b24_19b4_09a9, 0xff3d_81e5_df1a_a419, 0xbc3e_483a_fcb8_2947, 0xd40d_4917_4aab_1cc5, 0x3fb0_5b7a_2826_6895, 0x0c84_ee01_2b39_bf21)
    }
}
