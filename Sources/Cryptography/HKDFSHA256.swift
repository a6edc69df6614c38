/// HKDF with HMAC-SHA256 (RFC 5869): keys derived from input keying material (a shared secret),
/// an optional salt and a context label (`info`), so that keys for different purposes derived from
/// one secret are independent.
///
/// Intermediate blocks and the pseudorandom key of ``deriveKey(inputKeyMaterial:salt:info:outputByteCount:)``
/// are zeroed after use; the returned bytes belong to the caller, who should zero them (or hand
/// them to ``SecretBytes/init(taking:)``). ``Zeroization`` says what Swift cannot guarantee.
public enum HKDFSHA256 {
    /// The most one expansion can give: 255 blocks of 32 bytes.
    public static let maximumOutputByteCount = 255 * HMACSHA256.byteCount

    /// Extract (§2.2): the 32-byte pseudorandom key HMAC(salt, input keying material). An empty
    /// salt is 32 zero bytes, which HMAC's zero padding makes the same key.
    public static func extract(salt: some Collection<UInt8>, inputKeyMaterial: some Collection<UInt8>) -> [UInt8] {
        HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
    }

    /// Expand (§2.3): `outputByteCount` bytes T(1) ‖ T(2) ‖ …, where T(i) = HMAC(PRK, T(i−1) ‖ info ‖ i).
    /// - Throws: ``SymmetricCryptoError/outputSizeOutOfRange(_:)`` for a count below 0 or above
    ///   ``maximumOutputByteCount``; ``SymmetricCryptoError/pseudorandomKeyTooShort(_:)`` for a
    ///   key shorter than 32 bytes.
    public static func expand(pseudorandomKey: some Collection<UInt8>, info: some Collection<UInt8>, outputByteCount: Int) throws(SymmetricCryptoError) -> [UInt8] {
        guard (0...maximumOutputByteCount).contains(outputByteCount) else { throw .outputSizeOutOfRange(outputByteCount) }
        guard pseudorandomKey.count >= HMACSHA256.byteCount else { throw .pseudorandomKeyTooShort(pseudorandomKey.count) }
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount + HMACSHA256.byteCount)
        var input: [UInt8] = []
        input.reserveCapacity(HMACSHA256.byteCount + info.count + 1)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            input.removeAll(keepingCapacity: true)
            input.append(contentsOf: previous)
            input.append(contentsOf: info)
            input.append(counter)
            Zeroization.overwrite(&previous)
            previous = HMACSHA256.authenticationCode(for: input, key: pseudorandomKey)
            output.append(contentsOf: previous)
            counter &+= 1
        }
        Zeroization.overwrite(&previous)
        Zeroization.overwrite(&input)
        // The last block's surplus is zeroed before it is cut off (the capacity holds it, so no copy is made).
        for index in outputByteCount..<output.count { output[index] = 0 }
        output.removeLast(output.count - outputByteCount)
        return output
    }

    /// Extract then expand: `outputByteCount` bytes of key for the purpose `info`.
    /// - Throws: ``SymmetricCryptoError/outputSizeOutOfRange(_:)`` for a count below 0 or above
    ///   ``maximumOutputByteCount``.
    public static func deriveKey(
        inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8>, info: some Collection<UInt8>, outputByteCount: Int
    ) throws(SymmetricCryptoError) -> [UInt8] {
        guard (0...maximumOutputByteCount).contains(outputByteCount) else { throw .outputSizeOutOfRange(outputByteCount) }
        var pseudorandomKey = extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        defer { Zeroization.overwrite(&pseudorandomKey) }
        return try expand(pseudorandomKey: pseudorandomKey, info: info, outputByteCount: outputByteCount)
    }
}
