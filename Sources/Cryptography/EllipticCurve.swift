/// The curves a signature can be verified on (NIST P-256 = secp256r1, P-384 = secp384r1).
public enum EllipticCurve: Sendable, Hashable {
    /// NIST P-256 (secp256r1), used with SHA-256 (JWS `ES256`).
    case p256
    /// NIST P-384 (secp384r1), used with SHA-384; the curve of Apple Root CA - G3's key.
    case p384

    /// Bytes of a coordinate and of each half of a raw (JWS) signature: 32 or 48.
    public var coordinateByteCount: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        }
    }
}
