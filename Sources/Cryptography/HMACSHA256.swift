/// HMAC-SHA256 (RFC 2104; FIPS 198-1): a 32-byte code that only a holder of the key can compute
/// for a message.
///
/// The key may have any length (a key longer than 64 bytes is hashed first, as the RFC says; keys
/// shorter than 32 bytes are weak). The padded key blocks and the hash states derived from them are
/// zeroed after each call; ``Zeroization`` says what Swift cannot guarantee about this.
public enum HMACSHA256 {
    /// The code's size: 32 bytes.
    public static let byteCount = 32
    private static let blockByteCount = 64

    /// The 32-byte code of `message` under `key`.
    public static func authenticationCode(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockByteCount)
        defer { Zeroization.overwrite(&block) }
        if key.count > blockByteCount {
            var digest = SHA256.hash(key)
            for index in digest.indices { block[index] = digest[index] }
            Zeroization.overwrite(&digest)
        } else {
            for (index, byte) in key.enumerated() { block[index] = byte }
        }
        // inner = SHA-256((K ⊕ ipad) ‖ message); code = SHA-256((K ⊕ opad) ‖ inner).
        for index in block.indices { block[index] ^= 0x36 }
        var innerStart = block.withUnsafeBytes { SHA256.Midstate(blocks: $0) }
        var inner = SHA256.hash(message, after: innerStart)
        for index in block.indices { block[index] ^= 0x36 ^ 0x5c }
        var outerStart = block.withUnsafeBytes { SHA256.Midstate(blocks: $0) }
        let code = SHA256.hash(inner, after: outerStart)
        innerStart.state = SHA256.initialState
        outerStart.state = SHA256.initialState
        Zeroization.overwrite(&inner)
        return code
    }

    /// Whether `code` is the full 32-byte code of `message` under `key`, compared in constant time.
    /// A truncated code is refused.
    public static func isValidAuthenticationCode(_ code: some Collection<UInt8>, for message: some Collection<UInt8>, key: some Collection<UInt8>) -> Bool {
        var expected = authenticationCode(for: message, key: key)
        defer { Zeroization.overwrite(&expected) }
        return ConstantTimeComparison.equal(expected, code)
    }
}
