/// Why a symmetric operation (AEAD, HKDF) refused its input. A refused operation returns no
/// output at all: no partial plaintext, no short key.
public enum SymmetricCryptoError: Error, Equatable, Sendable {
    /// A key is not of the size the algorithm takes (ChaCha20-Poly1305: 32 bytes).
    case wrongKeySize(expected: Int, actual: Int)
    /// A nonce is not of the size the algorithm takes (ChaCha20-Poly1305: 12 bytes).
    case wrongNonceSize(expected: Int, actual: Int)
    /// The sealed message is shorter than its tag, or its tag does not match: it was modified,
    /// truncated, sealed under another key, nonce or associated data, or is not a sealed message.
    case authenticationFailed
    /// A message is longer than the algorithm can process under one nonce (ChaCha20's 32-bit block
    /// counter covers 256 GiB).
    case messageTooLong
    /// HKDF was asked for more than 255 × 32 bytes, or for a negative count.
    case outputSizeOutOfRange(Int)
    /// HKDF-Expand was given a pseudorandom key shorter than 32 bytes (RFC 5869 §2.3).
    case pseudorandomKeyTooShort(Int)
}
