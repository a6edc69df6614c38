import Testing

@testable import Cryptography

/// The worked examples of RFC 8439 (ChaCha20 §2.4.2, Poly1305 §2.5.2, the AEAD §2.8.2) and RFC
/// 5869's test cases 1–3 for HKDF-SHA256, with their intermediate values where the RFC gives them.
@Suite struct RFCSymmetricVectorTests {
    static let sunscreen = Array(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)

    @Test("RFC 8439 §2.4.2: the block function's output and the ciphertext")
    func chaCha20() {
        let key = (0..<32).map { UInt8($0) }
        let nonce = hexBytes("000000000000004a00000000")
        let cipher = key.withUnsafeBytes { key in nonce.withUnsafeBytes { ChaCha20(key: key, nonce: $0) } }
        func words(counter: UInt32) -> [UInt32] {
            var block = [UInt8](repeating: 0, count: 64)
            block.withUnsafeMutableBytes { cipher.block(counter: counter, into: $0) }
            return (0..<16).map { index in (0..<4).reduce(0) { $0 | UInt32(block[4 * index + $1]) << (8 * $1) } }
        }
        #expect(words(counter: 1) == [
            0xf351_4f22, 0xe1d9_1b40, 0x6f27_de2f, 0xed1d_63b8, 0x821f_138c, 0xe206_2c3d, 0xecca_4f7e, 0x78cf_f39e,
            0xa30a_3b8a, 0x920a_6072, 0xcd74_79b5, 0x3493_2bed, 0x40ba_4c79, 0xcd34_3ec6, 0x4c2c_21ea, 0xb741_7df0,
        ])
        #expect(words(counter: 2) == [
            0x9f74_a669, 0x410f_633f, 0x28fe_ca22, 0x7ec4_4dec, 0x6d34_d426, 0x738c_b970, 0x3ac5_e9f3, 0x4559_0cc4,
            0xda6e_8b39, 0x892c_831a, 0xcdea_67c1, 0x2b7e_1d90, 0x0374_63f3, 0xa11a_2073, 0xe8bc_fb88, 0xedc4_9139,
        ])
        let ciphertext = [UInt8](unsafeUninitializedCapacity: Self.sunscreen.count) { output, count in
            Self.sunscreen.withUnsafeBytes { cipher.xor($0, into: UnsafeMutableRawBufferPointer(output), initialCounter: 1) }
            count = Self.sunscreen.count
        }
        #expect(hexString(ciphertext) == """
            6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab\
            8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d
            """)
    }

    @Test("RFC 8439 §2.5.2: the tag of \"Cryptographic Forum Research Group\"")
    func poly1305() {
        let key = hexBytes("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        let message = Array("Cryptographic Forum Research Group".utf8)
        var authenticator = key.withUnsafeBytes { Poly1305(key: $0) }
        message.withUnsafeBytes { authenticator.update($0) }
        #expect(hexString(authenticator.finalize()) == "a8061dc1305136c6c22b8baf0c0127a9")
    }

    @Test("RFC 8439 §2.8.2: sealing the sunscreen text with associated data, and opening it")
    func aead() throws {
        let cipher = try ChaCha20Poly1305(key: (0x80..<0xa0).map { UInt8($0) })
        let nonce = hexBytes("070000004041424344454647")
        let associatedData = hexBytes("50515253c0c1c2c3c4c5c6c7")
        let sealed = try cipher.seal(Self.sunscreen, nonce: nonce, authenticating: associatedData)
        #expect(hexString(sealed) == """
            d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f\
            2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116\
            1ae10b594f09e26a7e902ecbd0600691
            """)
        #expect(try cipher.open(sealed, nonce: nonce, authenticating: associatedData) == Self.sunscreen)
    }

    struct HKDFCase: Sendable, CustomTestStringConvertible {
        var number: Int
        var ikm: [UInt8], salt: [UInt8], info: [UInt8]
        var length: Int
        var prk: String, okm: String
        var testDescription: String { "RFC 5869 A.\(number)" }
    }

    static let hkdfCases = [
        HKDFCase(
            number: 1, ikm: [UInt8](repeating: 0x0b, count: 22), salt: (0x00...0x0c).map { UInt8($0) }, info: (0xf0...0xf9).map { UInt8($0) },
            length: 42, prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        HKDFCase(
            number: 2, ikm: (0x00...0x4f).map { UInt8($0) }, salt: (0x60...0xaf).map { UInt8($0) }, info: (0xb0...0xff).map { UInt8($0) },
            length: 82, prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        HKDFCase(
            number: 3, ikm: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [],
            length: 42, prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: hkdfCases)
    func hkdf(_ example: HKDFCase) throws {
        let prk = HKDFSHA256.extract(salt: example.salt, inputKeyMaterial: example.ikm)
        #expect(hexString(prk) == example.prk)
        #expect(hexString(try HKDFSHA256.expand(pseudorandomKey: prk, info: example.info, outputByteCount: example.length)) == example.okm)
        #expect(hexString(try HKDFSHA256.deriveKey(inputKeyMaterial: example.ikm, salt: example.salt, info: example.info, outputByteCount: example.length))
            == example.okm)
    }
}
