/// ChaCha20-Poly1305 authenticated encryption with associated data (RFC 8439 §2.8) under one
/// 32-byte key.
///
/// Sealing encrypts a message and appends a 16-byte tag that authenticates the ciphertext and the
/// associated data (sent in the clear, or known to both sides); opening checks the tag (in
/// constant time) before it decrypts anything, and returns no plaintext at all when the tag is
/// wrong.
///
/// The caller must never seal two messages under the same key with the same 12-byte nonce: that
/// reveals the XOR of the two plaintexts and lets anyone forge tags. A counter that only goes up
/// (as the companion link's frames use) is the usual way to make sure.
///
/// The key is kept in a ``SecretBytes`` this value owns (overwritten with zeros when the last copy
/// of the value goes); the one-time Poly1305 key and ChaCha20's copy of the key are zeroed after
/// each call. ``Zeroization`` says what Swift cannot guarantee about this.
public struct ChaCha20Poly1305: Sendable {
    /// The key's size: 32 bytes.
    public static let keyByteCount = 32
    /// The nonce's size: 12 bytes.
    public static let nonceByteCount = 12
    /// The tag's size: 16 bytes, at the end of a sealed message.
    public static let tagByteCount = 16
    /// The longest plaintext one nonce can seal: ChaCha20's 32-bit block counter, from 1 on.
    public static let maximumPlaintextByteCount = Int(UInt32.max) * 64

    private let key: SecretBytes

    /// The cipher under `key` (32 bytes), copied into storage this value owns; the caller still
    /// owns (and should zero) `key`.
    /// - Throws: ``SymmetricCryptoError/wrongKeySize(expected:actual:)``.
    public init(key: some Collection<UInt8>) throws(SymmetricCryptoError) {
        try self.init(key: SecretBytes(key))
    }

    /// The cipher under `key` (32 bytes), shared, not copied.
    /// - Throws: ``SymmetricCryptoError/wrongKeySize(expected:actual:)``.
    public init(key: SecretBytes) throws(SymmetricCryptoError) {
        guard key.count == Self.keyByteCount else { throw .wrongKeySize(expected: Self.keyByteCount, actual: key.count) }
        self.key = key
    }

    /// `plaintext` encrypted, followed by the 16-byte tag over it and `associatedData`.
    /// - Throws: ``SymmetricCryptoError/wrongNonceSize(expected:actual:)`` unless `nonce` has 12
    ///   bytes; ``SymmetricCryptoError/messageTooLong`` beyond ``maximumPlaintextByteCount``.
    public func seal(
        _ plaintext: some Collection<UInt8>, nonce: some Collection<UInt8>, authenticating associatedData: some Collection<UInt8>
    ) throws(SymmetricCryptoError) -> [UInt8] {
        try Self.check(nonce: nonce)
        guard plaintext.count <= Self.maximumPlaintextByteCount else { throw .messageTooLong }
        let count = plaintext.count
        return withCipher(nonce: nonce) { cipher, authenticator in
            [UInt8](unsafeUninitializedCapacity: count + Self.tagByteCount) { output, initializedCount in
                let raw = UnsafeMutableRawBufferPointer(output)
                let ciphertext = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                withContiguousBytes(plaintext) { cipher.xor($0, into: ciphertext, initialCounter: 1) }
                let tag = Self.tag(&authenticator, associatedData: associatedData, ciphertext: UnsafeRawBufferPointer(ciphertext))
                for index in 0..<Self.tagByteCount { output[count + index] = tag[index] }
                initializedCount = count + Self.tagByteCount
            }
        }
    }

    /// The plaintext of `sealed` (ciphertext followed by its 16-byte tag), if the tag is right for
    /// it, `nonce` and `associatedData` under this key.
    /// - Throws: ``SymmetricCryptoError/authenticationFailed`` when `sealed` is shorter than a tag
    ///   or its tag does not match (nothing was decrypted);
    ///   ``SymmetricCryptoError/wrongNonceSize(expected:actual:)`` unless `nonce` has 12 bytes.
    public func open(
        _ sealed: some Collection<UInt8>, nonce: some Collection<UInt8>, authenticating associatedData: some Collection<UInt8>
    ) throws(SymmetricCryptoError) -> [UInt8] {
        try Self.check(nonce: nonce)
        guard sealed.count >= Self.tagByteCount else { throw .authenticationFailed }
        let count = sealed.count - Self.tagByteCount
        let plaintext: [UInt8]? = withContiguousBytes(sealed) { sealed in
            withCipher(nonce: nonce) { cipher, authenticator in
                let ciphertext = UnsafeRawBufferPointer(rebasing: sealed[0..<count])
                let expected = Self.tag(&authenticator, associatedData: associatedData, ciphertext: ciphertext)
                guard ConstantTimeComparison.equal(expected, sealed[count...]) else { return nil }
                return [UInt8](unsafeUninitializedCapacity: count) { output, initializedCount in
                    cipher.xor(ciphertext, into: UnsafeMutableRawBufferPointer(output), initialCounter: 1)
                    initializedCount = count
                }
            }
        }
        guard let plaintext else { throw .authenticationFailed }
        return plaintext
    }

    private static func check(nonce: some Collection<UInt8>) throws(SymmetricCryptoError) {
        guard nonce.count == nonceByteCount else { throw .wrongNonceSize(expected: nonceByteCount, actual: nonce.count) }
    }

    /// Calls `body` with ChaCha20 under this key and `nonce`, and the Poly1305 authenticator keyed
    /// by the first 32 bytes of keystream block 0 (§2.6); both are zeroed afterwards.
    private func withCipher<Result>(nonce: some Collection<UInt8>, _ body: (ChaCha20, inout Poly1305) -> Result) -> Result {
        key.withUnsafeBytes { key in
            withContiguousBytes(nonce) { nonce in
                var cipher = ChaCha20(key: key, nonce: nonce)
                defer { cipher.erase() }
                var authenticator = withUnsafeTemporaryAllocation(byteCount: ChaCha20.blockByteCount, alignment: 16) { block in
                    cipher.block(counter: 0, into: block)
                    defer { Zeroization.overwrite(block) }
                    return Poly1305(key: UnsafeRawBufferPointer(rebasing: block[0..<32]))
                }
                return body(cipher, &authenticator)
            }
        }
    }

    /// The tag (§2.8): Poly1305 over the associated data, zeros to a 16-byte boundary, the
    /// ciphertext, zeros to a boundary, and the two lengths as 64-bit little-endian numbers.
    private static func tag(_ authenticator: inout Poly1305, associatedData: some Collection<UInt8>, ciphertext: UnsafeRawBufferPointer) -> [UInt8] {
        withContiguousBytes(associatedData) { authenticator.update($0) }
        authenticator.padToBlockBoundary()
        authenticator.update(ciphertext)
        authenticator.padToBlockBoundary()
        var lengths = (UInt64(associatedData.count).littleEndian, UInt64(ciphertext.count).littleEndian)
        withUnsafeBytes(of: &lengths) { authenticator.update($0) }
        return authenticator.finalize()
    }
}
