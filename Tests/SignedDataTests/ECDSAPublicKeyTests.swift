import Cryptography
import Testing

/// Key decoding refuses everything but a valid uncompressed point, and a digest of another
/// length than the curve's is truncated or taken whole as FIPS 186-4 says.
@Suite struct ECDSAPublicKeyTests {
    // Made with OpenSSL 3.0: `openssl ecparam -name prime256v1 -genkey` (and secp384r1), the
    // public key's last 65 / 97 bytes of `openssl ec -pubout -outform DER`, and
    // `openssl dgst -sha384 -sign` / `-sha256 -sign` over the message below.
    static let message = Array("cross-hash message".utf8)
    static let p256Key = hexBytes("045cd87a63e81b096eff100812c06c65d95efe31c8254fe00c0781b32106602613eb215bc121e707e460d8a14fef02cb3d2f0a6b425b46d2b732528ba0cbc6861c")
    static let p256SignatureOfSHA384 = hexBytes("30440220795eca679afb35b9dd0a1017124fed13f9c6263cb85fa912e3f657d7e69f2fed022003452adfece20ee037177e8b2e8521e00260b85d85339ba145c407c317deee39")
    static let p384Key = hexBytes("04e15b6e8cb4ce674c90dab9ebb3d68d59a9704749b8644b86e1c999a09b25253403678b7a88c423854bb7eb86a70c62dea0ed2554aad3cb36de4c193920e156b94d6bdcb59c32c010026cfd354405c071bd63ff75dab6d1073107b0469ebff4a3")
    static let p384SignatureOfSHA256 = hexBytes("3064023079047be402f7530ca6d7c7ebf4aa4f38fd42600ad54dd5269ca7e2f5f9e36c011841fdd7929001b5fa53b4b4e82077bd023035428648f3069ce709f502b921932a73cff17f0d878534dcd584f9e742ebac7d6563c45fd358f4de05994038e80c2824")

    static let p256Prime = hexBytes("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
    static let p256GeneratorX = hexBytes("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
    static let p256GeneratorY = hexBytes("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")

    @Test func p256KeyVerifiesASHA384Digest() throws {
        let key = try ECDSAPublicKey(curve: .p256, x962Representation: Self.p256Key)
        #expect(key.isValidSignature(der: Self.p256SignatureOfSHA384, digest: SHA384.hash(Self.message)))
        #expect(!key.isValidSignature(der: Self.p256SignatureOfSHA384, digest: SHA256.hash(Self.message)))
        // Only the leftmost 256 bits count: the digest's last 16 bytes may be anything.
        var changedTail = SHA384.hash(Self.message)
        changedTail[47] ^= 1
        #expect(key.isValidSignature(der: Self.p256SignatureOfSHA384, digest: changedTail))
        var changedHead = SHA384.hash(Self.message)
        changedHead[31] ^= 1
        #expect(!key.isValidSignature(der: Self.p256SignatureOfSHA384, digest: changedHead))
    }

    @Test func p384KeyVerifiesASHA256Digest() throws {
        let key = try ECDSAPublicKey(curve: .p384, x962Representation: Self.p384Key)
        #expect(key.isValidSignature(der: Self.p384SignatureOfSHA256, digest: SHA256.hash(Self.message)))
        #expect(!key.isValidSignature(der: Self.p384SignatureOfSHA256, digest: SHA384.hash(Self.message)))
    }

    @Test func theGeneratorIsAValidKey() throws {
        let key = try ECDSAPublicKey(curve: .p256, x962Representation: [0x04] + Self.p256GeneratorX + Self.p256GeneratorY)
        #expect(key.curve == .p256)
        #expect(key == (try ECDSAPublicKey(curve: .p256, x962Representation: ([0x04] + Self.p256GeneratorX + Self.p256GeneratorY)[...])))
    }

    @Test func malformedKeysAreRefused() {
        let valid = [0x04] + Self.p256GeneratorX + Self.p256GeneratorY
        func error(_ bytes: [UInt8], curve: EllipticCurve = .p256) -> SignatureError? {
            do {
                _ = try ECDSAPublicKey(curve: curve, x962Representation: bytes)
                return nil
            } catch { return error }
        }
        #expect(error(valid) == nil)
        #expect(error([0x00]) == .malformedPublicKey)  // the point at infinity
        #expect(error([]) == .malformedPublicKey)
        #expect(error([0x02] + Self.p256GeneratorX) == .malformedPublicKey)  // compressed
        #expect(error([0x03] + Self.p256GeneratorX) == .malformedPublicKey)
        #expect(error([0x06] + Self.p256GeneratorX + Self.p256GeneratorY) == .malformedPublicKey)  // hybrid
        #expect(error(valid + [0]) == .malformedPublicKey)
        #expect(error(Array(valid.dropLast())) == .malformedPublicKey)
        #expect(error(valid, curve: .p384) == .malformedPublicKey)
        #expect(error([0x04] + Self.p256Prime + Self.p256GeneratorY) == .coordinateOutOfRange)
        #expect(error([0x04] + Self.p256GeneratorX + Self.p256Prime) == .coordinateOutOfRange)
        #expect(error([0x04] + [UInt8](repeating: 0xff, count: 64)) == .coordinateOutOfRange)
        var offCurve = valid
        offCurve[64] ^= 1
        #expect(error(offCurve) == .pointNotOnCurve)
        #expect(error([0x04] + [UInt8](repeating: 0, count: 64)) == .pointNotOnCurve)  // (0, 0), another spelling of infinity
    }
}
