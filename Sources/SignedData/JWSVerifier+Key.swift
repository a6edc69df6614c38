import Cryptography

extension JWSVerifier {
    /// Checks `jws`, whose header gave `algorithm` (`alg`), against one known P-256 `key`
    /// rather than a certificate chain: intact when `alg` is ES256 and the signature verifies
    /// under `key`. What a key may sign, and how it is named, is the caller's business.
    /// - Throws: ``JWSFailure/algorithm(_:)`` or ``JWSFailure/badSignature``.
    public static func verify(_ jws: JWSCompact, algorithm: String?, key: ECDSAPublicKey) throws(JWSFailure) {
        guard algorithm == "ES256" else { throw .algorithm(algorithm) }
        guard key.curve == .p256, key.isValidSignature(raw: jws.signature, digest: SHA256.hash(jws.signingInput)) else {
            throw .badSignature
        }
    }
}
