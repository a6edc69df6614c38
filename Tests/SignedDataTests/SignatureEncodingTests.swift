import Cryptography
import Testing

/// One valid P-256 signature in both encodings, and every way of spelling it differently that
/// must be refused: the DER reader accepts only the canonical encoding, the raw form only the
/// exact width.
@Suite struct SignatureEncodingTests {
    // The first valid vector of Wycheproof's P-256 / SHA-256 DER file (tcId 1, empty message).
    static let key = hexBytes("0404aaec73635726f213fb8a9e64da3b8632e41495a944d0045b522eba7240fad587d9315798aaa3a5ba01775787ced05eaaf7b4e09fc81d6d1aa546e8365d525d")
    static let r = hexBytes("00b292a619339f6e567a305c951c0dcbcc42d16e47f219f9e98e76e09d8770b34a")
    static let s = hexBytes("0177e60492c5a8242f76f07bfe3661bde59ec2a17ce5bd2dab2abebdf89a62e2")
    static let digest = SHA256.hash([UInt8]())

    static func der(r: [UInt8] = r, s: [UInt8] = s) -> [UInt8] {
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        return [0x30, UInt8(body.count)] + body
    }

    /// r || s, each left-padded to 32 bytes.
    static var raw: [UInt8] {
        let rMagnitude = Array(r.drop { $0 == 0 }), sMagnitude = Array(s.drop { $0 == 0 })
        return [UInt8](repeating: 0, count: 32 - rMagnitude.count) + rMagnitude + [UInt8](repeating: 0, count: 32 - sMagnitude.count) + sMagnitude
    }

    @Test func theCanonicalEncodingsVerify() throws {
        let key = try ECDSAPublicKey(curve: .p256, x962Representation: Self.key)
        #expect(key.isValidSignature(der: Self.der(), digest: Self.digest))
        #expect(key.isValidSignature(raw: Self.raw, digest: Self.digest))
        #expect(key.isValidSignature(raw: Self.raw[...], digest: Self.digest[...]))
    }

    @Test func otherSpellingsOfTheSameSignatureAreRefused() throws {
        let key = try ECDSAPublicKey(curve: .p256, x962Representation: Self.key)
        let canonical = Self.der()
        var refused: [(String, [UInt8])] = [
            ("trailing byte", canonical + [0]),
            ("long-form length of the sequence", [0x30, 0x81, canonical[1]] + canonical.dropFirst(2)),
            ("indefinite length", [0x30, 0x80] + canonical.dropFirst(2) + [0, 0]),
            ("sequence length one short", [0x30, canonical[1] - 1] + canonical.dropFirst(2)),
            ("sequence length one long", [0x30, canonical[1] + 1] + canonical.dropFirst(2)),
            ("set instead of sequence", [0x31] + canonical.dropFirst()),
            ("r with a redundant zero byte", Self.der(r: [0] + Self.r)),
            ("s with a leading zero before a byte below 0x80", Self.der(s: [0] + Self.s)),
            ("r without its sign byte (negative)", Self.der(r: Array(Self.r.dropFirst()))),
            ("r = 0", Self.der(r: [0])),
            ("empty r", Self.der(r: [])),
            ("r + n (too wide)", Self.der(r: hexBytes("01") + [UInt8](repeating: 0, count: 32))),
            ("only r", Array([0x30, UInt8(Self.r.count + 2), 0x02, UInt8(Self.r.count)] + Self.r)),
            ("empty", []),
        ]
        refused.append(("r and s swapped", Self.der(r: Self.s, s: Self.r)))
        for (name, signature) in refused {
            #expect(!key.isValidSignature(der: signature, digest: Self.digest), "\(name)")
        }
        for (name, signature) in [
            ("one byte short", Array(Self.raw.dropLast())), ("one byte long", Self.raw + [0]), ("DER given as raw", canonical),
            ("zero", [UInt8](repeating: 0, count: 64)), ("r||s of P-384 width", [UInt8](repeating: 0, count: 16) + Self.raw.prefix(32) + [UInt8](repeating: 0, count: 16) + Self.raw.suffix(32)),
        ] {
            #expect(!key.isValidSignature(raw: signature, digest: Self.digest), "\(name)")
        }
        var flipped = Self.raw
        flipped[63] ^= 1
        #expect(!key.isValidSignature(raw: flipped, digest: Self.digest))
    }
}
