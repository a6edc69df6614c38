/// An ECDSA public key on P-256 or P-384, checked on creation, that verifies signatures over a
/// digest the caller computed. Verification is variable time (only public data is involved).
/// Building the key does per-key precomputation; keep the value to verify many signatures.
public struct ECDSAPublicKey: Sendable, Hashable {
    /// The curve the key is on; a signature must use the same one.
    public let curve: EllipticCurve
    /// The uncompressed point as given: the key's identity for `==` and hashing.
    public let x962Representation: [UInt8]
    private let verifier: Verifier

    private enum Verifier: Sendable {
        case p256(ECDSAVerifier<P256>)
        case p384(ECDSAVerifier<P384>)
    }

    /// How much a key precomputes, traded against the cost of each verification.
    public enum Preparation: Sendable, Hashable {
        /// Tables for a scalar split in two, 8 entries each: about the cost of one verification
        /// to build. For a key that verifies a few signatures (a certificate's issuer).
        case standard
        /// Tables for a scalar split in eight, 32 entries each (width-7 digits, as the
        /// generator's): 224 doublings and 256 entries to build on P-256 (about five
        /// verifications), and each verification then takes a quarter of the doublings and
        /// fewer additions. For a key kept to verify many signatures (the leaf of a cached chain).
        case manySignatures

        /// The width of the key's digits and the pieces its scalar is split into.
        var shape: (window: Int, parts: Int) {
            switch self {
            case .standard: (5, 2)
            case .manySignatures: (7, 8)
            }
        }
    }

    /// A key from its X9.62 uncompressed form `0x04 || X || Y` (65 bytes on P-256, 97 on P-384,
    /// the form inside an X.509 SubjectPublicKeyInfo). Throws ``SignatureError`` when the form is
    /// wrong (compressed, infinity, wrong length), a coordinate is not below the field prime, or
    /// the point is not on `curve`.
    public init(curve: EllipticCurve, x962Representation: some Collection<UInt8>, preparation: Preparation = .standard) throws(SignatureError) {
        let bytes = Array(x962Representation)
        self.curve = curve
        self.x962Representation = bytes
        switch curve {
        case .p256: verifier = .p256(ECDSAVerifier(key: try ECDSAVerifier<P256>.decodePoint(bytes), window: preparation.shape.window, parts: preparation.shape.parts))
        case .p384: verifier = .p384(ECDSAVerifier(key: try ECDSAVerifier<P384>.decodePoint(bytes), window: preparation.shape.window, parts: preparation.shape.parts))
        }
    }

    /// The same key prepared as `preparation` says.
    public func prepared(_ preparation: Preparation) -> ECDSAPublicKey {
        // The point was checked when this key was made.
        try! ECDSAPublicKey(curve: curve, x962Representation: x962Representation, preparation: preparation)
    }

    /// Whether `signature`, in the raw form `r || s` of JWS (RFC 7515 §3.4: each exactly
    /// ``EllipticCurve/coordinateByteCount`` bytes, big-endian), is this key's signature of
    /// `digest`. Any other length is false. The digest may come from any hash: it is truncated
    /// to the group order's bit length (FIPS 186-4 §6.4), so SHA-384 works with P-256 and
    /// SHA-256 with P-384.
    public func isValidSignature(raw signature: some Collection<UInt8>, digest: some Collection<UInt8>) -> Bool {
        guard let components = ECDSASignatureEncoding.raw(Array(signature), width: curve.coordinateByteCount) else { return false }
        return isValid(components, digest: Array(digest))
    }

    /// Whether `signature`, a DER `ECDSA-Sig-Value` (the form in X.509 certificates), is this
    /// key's signature of `digest`. Only the canonical DER encoding is accepted: a long-form or
    /// padded length, a non-minimal, negative or oversized integer, or trailing bytes make it
    /// false. The digest is truncated as for ``isValidSignature(raw:digest:)``.
    public func isValidSignature(der signature: some Collection<UInt8>, digest: some Collection<UInt8>) -> Bool {
        guard let components = ECDSASignatureEncoding.der(Array(signature), width: curve.coordinateByteCount) else { return false }
        return isValid(components, digest: Array(digest))
    }

    private func isValid(_ components: ECDSASignatureEncoding.Components, digest: [UInt8]) -> Bool {
        switch verifier {
        case .p256(let verifier): verifier.isValid(components, digest: digest)
        case .p384(let verifier): verifier.isValid(components, digest: digest)
        }
    }

    public static func == (lhs: ECDSAPublicKey, rhs: ECDSAPublicKey) -> Bool {
        lhs.curve == rhs.curve && lhs.x962Representation == rhs.x962Representation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(curve)
        hasher.combine(x962Representation)
    }
}
