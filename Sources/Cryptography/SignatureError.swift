/// Why a public key was refused. (A signature that does not verify is not an error:
/// ``ECDSAPublicKey/isValidSignature(raw:digest:)`` answers false.)
public enum SignatureError: Error, Equatable, Sendable {
    /// The key is not `0x04 || X || Y` of exactly 1 + 2 × the curve's coordinate length
    /// (compressed points and the one-byte encoding of infinity are refused too).
    case malformedPublicKey
    /// A coordinate is not below the field prime.
    case coordinateOutOfRange
    /// (X, Y) does not satisfy the curve's equation.
    case pointNotOnCurve
}
