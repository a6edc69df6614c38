import Entitlements
import Foundation
import Cryptography
import SignedData

/// Makes the verified-ingest benchmark's input: JWS transactions signed by the test leaf of the
/// package's JWS test vectors (`Tests/JWSVerificationTests/Vectors/tampered`: the chain of
/// `good-test-root.jsonl`, its key in `keys/test-leaf.pem`, its root `test-root.pem`).
///
/// The package has no signing code and needs none; this generator only has to produce many
/// valid ES256 signatures fast, so it reuses the nonce of the one signature in the fixture: from
/// `(r, s)` over digest `e₀` and the key `d`, `k = s⁻¹(e₀ + r·d) mod n`, and every further
/// signature is `(r, k⁻¹(e + r·d) mod n)`, arithmetic modulo the group order only. Reusing a
/// nonce reveals the key, which is why this is only ever done with a throw-away test key, and
/// it makes no difference to the verifier, which does the same work for every signature.
struct BenchmarkJWSSigner {
    /// The header part (base64url) carrying `alg` ES256 and the test chain in `x5c`.
    let header: String
    let rootPath: String
    private let r: GroupScalar
    private let inverseNonce: GroupScalar
    private let rTimesKey: GroupScalar

    /// Reads the fixture under `vectors` (the package's `Tests/JWSVerificationTests/Vectors`).
    init(vectors: String) throws(BenchmarkError) {
        guard let line = try? String(contentsOfFile: vectors + "/tampered/good-test-root.jsonl", encoding: .utf8),
            let start = line.range(of: #""signedTransactionInfo":""#),
            let end = line[start.upperBound...].firstIndex(of: "\"")
        else { throw BenchmarkError("\(vectors)/tampered/good-test-root.jsonl: no signedTransactionInfo") }
        let parts = line[start.upperBound..<end].split(separator: ".")
        guard parts.count == 3, let signature = Base64.decode(url: parts[2]), signature.count == 64 else {
            throw BenchmarkError("good-test-root.jsonl: not an ES256 JWS")
        }
        guard let pem = try? String(contentsOfFile: vectors + "/tampered/keys/test-leaf.pem", encoding: .utf8),
            let key = Self.privateKey(pem: pem)
        else { throw BenchmarkError("\(vectors)/tampered/keys/test-leaf.pem: not an EC private key") }
        header = String(parts[0])
        rootPath = vectors + "/tampered/test-root.pem"
        r = GroupScalar(bytes: signature[0..<32])
        let s = GroupScalar(bytes: signature[32..<64])
        let e0 = GroupScalar(bytes: SHA256.hash(Array((parts[0] + "." + parts[1]).utf8)))
        rTimesKey = r.times(key)
        let nonce = s.inverse.times(e0.plus(rTimesKey))
        inverseNonce = nonce.inverse
    }

    /// A JWS compact string of `payload` that the test chain verifies.
    func sign(_ payload: String) -> String {
        let signingInput = header + "." + Base64.encode(url: Array(payload.utf8))
        let e = GroupScalar(bytes: SHA256.hash(Array(signingInput.utf8)))
        let s = inverseNonce.times(e.plus(rTimesKey))
        return signingInput + "." + Base64.encode(url: r.bytes + s.bytes)
    }

    /// `d` from a SEC 1 `EC PRIVATE KEY` PEM (`openssl ecparam -genkey -noout`).
    private static func privateKey(pem: String) -> GroupScalar? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Base64.decode(standard: body) else { return nil }
        // ECPrivateKey ::= SEQUENCE { version INTEGER 1, privateKey OCTET STRING (32 bytes), ... }
        let prefix: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20]
        guard let at = (0..<max(0, der.count - prefix.count)).first(where: { Array(der[$0..<$0 + prefix.count]) == prefix }),
            at + prefix.count + 32 <= der.count
        else { return nil }
        return GroupScalar(bytes: der[(at + prefix.count)..<(at + prefix.count + 32)])
    }
}

/// An integer modulo the P-256 group order n, four 64-bit limbs, least significant first. Plain
/// shift-and-add arithmetic: a few microseconds a product, enough for a benchmark's input.
private struct GroupScalar {
    var limbs: [UInt64]

    static let order: [UInt64] = [0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000]

    /// From 32 big-endian bytes, reduced modulo n (one subtraction suffices below 2²⁵⁶).
    init(bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        limbs = (0..<4).map { limb in
            (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(array[(3 - limb) * 8 + $1]) }
        }
        if !Self.less(limbs, Self.order) { limbs = Self.subtract(limbs, Self.order).value }
    }

    private init(limbs: [UInt64]) { self.limbs = limbs }

    var bytes: [UInt8] { (0..<4).reversed().flatMap { limb in (0..<8).reversed().map { UInt8(truncatingIfNeeded: limbs[limb] >> (8 * UInt64($0))) } } }

    private static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for index in (0..<4).reversed() where a[index] != b[index] { return a[index] < b[index] }
        return false
    }

    private static func subtract(_ a: [UInt64], _ b: [UInt64]) -> (value: [UInt64], borrow: Bool) {
        var out = a, borrow: UInt64 = 0
        for index in 0..<4 {
            let (first, overflow1) = a[index].subtractingReportingOverflow(b[index])
            let (second, overflow2) = first.subtractingReportingOverflow(borrow)
            out[index] = second
            borrow = (overflow1 || overflow2) ? 1 : 0
        }
        return (out, borrow == 1)
    }

    func plus(_ other: GroupScalar) -> GroupScalar {
        var out = limbs, carry: UInt64 = 0
        for index in 0..<4 {
            let (first, overflow1) = limbs[index].addingReportingOverflow(other.limbs[index])
            let (second, overflow2) = first.addingReportingOverflow(carry)
            out[index] = second
            carry = (overflow1 || overflow2) ? 1 : 0
        }
        if carry == 1 || !Self.less(out, Self.order) { out = Self.subtract(out, Self.order).value }
        return GroupScalar(limbs: out)
    }

    func times(_ other: GroupScalar) -> GroupScalar {
        var result = GroupScalar(limbs: [0, 0, 0, 0])
        for index in (0..<256).reversed() {
            result = result.plus(result)
            if other.limbs[index / 64] >> UInt64(index % 64) & 1 == 1 { result = result.plus(self) }
        }
        return result
    }

    /// self^(n-2) mod n (Fermat: n is prime).
    var inverse: GroupScalar {
        let exponent = Self.subtract(Self.order, [2, 0, 0, 0]).value
        var result = GroupScalar(limbs: [1, 0, 0, 0])
        for index in (0..<256).reversed() {
            result = result.times(result)
            if exponent[index / 64] >> UInt64(index % 64) & 1 == 1 { result = result.times(self) }
        }
        return result
    }
}
