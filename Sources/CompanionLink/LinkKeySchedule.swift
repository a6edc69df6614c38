import Cryptography

/// What the handshake computes from the pairing key and the two sides' fresh nonces: each side's
/// proof that it holds the key, and the two directions' session keys.
///
/// - transcript = label ‖ version ‖ initiator's nonce ‖ responder's nonce
/// - proof(role) = HMAC-SHA256(pairing key, "proof " ‖ role ‖ 0x00 ‖ transcript)
/// - session keys = HKDF-SHA256(input key material: pairing key, salt: both nonces, info: label
///   ‖ " session keys", 64 bytes): the first 32 seal what the initiator sends, the last 32 what
///   the responder sends.
///
/// Both nonces are fresh random bytes of each connection, so each connection gets keys never used
/// before, even if one side's randomness repeated; see ``LinkSession`` for why no nonce is ever
/// reused under one of them.
struct LinkKeySchedule {
    static let nonceByteCount = 32
    static let pairingKeyByteCount = 32
    private static let label = Array("entitlement-broker companion link v1".utf8)

    let pairingKey: SecretBytes
    let initiatorNonce: [UInt8]
    let responderNonce: [UInt8]

    private var transcript: [UInt8] { Self.label + [LinkFrame.version] + initiatorNonce + responderNonce }

    /// The proof a side in `role` sends.
    func proof(of role: LinkRole) -> [UInt8] {
        pairingKey.withUnsafeBytes { key in
            HMACSHA256.authenticationCode(for: Array("proof \(role.label)".utf8) + [0] + transcript, key: key)
        }
    }

    /// The session keys: what `role` seals with and what it opens with.
    func sessionKeys(for role: LinkRole) -> (sending: ChaCha20Poly1305, receiving: ChaCha20Poly1305) {
        var material = pairingKey.withUnsafeBytes { key in
            // 64 bytes from a 32-byte PRK never exceed HKDF's limit.
            try! HKDFSHA256.deriveKey(
                inputKeyMaterial: key, salt: initiatorNonce + responderNonce, info: Self.label + Array(" session keys".utf8),
                outputByteCount: 2 * ChaCha20Poly1305.keyByteCount)
        }
        let keys = SecretBytes(taking: &material)
        func cipher(_ range: Range<Int>) -> ChaCha20Poly1305 {
            // Each half is copied into the cipher's own SecretBytes; the slice is read in place.
            keys.withUnsafeBytes { try! ChaCha20Poly1305(key: $0[range]) }
        }
        let initiatorToResponder = cipher(0..<32), responderToInitiator = cipher(32..<64)
        return role == .initiator ? (initiatorToResponder, responderToInitiator) : (responderToInitiator, initiatorToResponder)
    }
}
