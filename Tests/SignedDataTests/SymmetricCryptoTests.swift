import TestSupport
import Testing

@testable import Cryptography

/// What the vectors do not pin down: that any change to a sealed message, its nonce, its
/// associated data or the key is refused without plaintext; that Poly1305 fed in pieces gives
/// the tag of the whole; the refusals of sizes; and that secrets handed over are zeroed.
@Suite struct SymmetricCryptoTests {
    static let key = (0..<32).map { UInt8($0 * 7 &+ 3) }
    static let nonce = hexBytes("000000000000000000000001")

    /// Every length up to 300 (empty, partial and whole blocks of both ChaCha20 and Poly1305)
    /// round-trips, and flipping any one bit anywhere in the sealed message is refused.
    @Test func everyBitOfASealedMessageIsAuthenticated() throws {
        let cipher = try ChaCha20Poly1305(key: Self.key)
        var random = SplitMix(seed: 0xC0DE)
        for length in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 300] {
            let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let associatedData = (0..<(length % 37)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let sealed = try cipher.seal(message, nonce: Self.nonce, authenticating: associatedData)
            #expect(sealed.count == length + ChaCha20Poly1305.tagByteCount)
            #expect(try cipher.open(sealed, nonce: Self.nonce, authenticating: associatedData) == message)
            for bit in 0..<sealed.count * 8 {
                var tampered = sealed
                tampered[bit / 8] ^= 1 << (bit % 8)
                #expect(throws: SymmetricCryptoError.authenticationFailed) {
                    try cipher.open(tampered, nonce: Self.nonce, authenticating: associatedData)
                }
            }
        }
    }

    @Test func anotherKeyNonceOrAssociatedDataIsRefused() throws {
        let cipher = try ChaCha20Poly1305(key: Self.key)
        let sealed = try cipher.seal(Array("one purchase".utf8), nonce: Self.nonce, authenticating: [1, 2, 3])
        var otherKey = Self.key
        otherKey[31] ^= 0x80
        #expect(throws: SymmetricCryptoError.authenticationFailed) {
            try ChaCha20Poly1305(key: otherKey).open(sealed, nonce: Self.nonce, authenticating: [1, 2, 3])
        }
        #expect(throws: SymmetricCryptoError.authenticationFailed) {
            try cipher.open(sealed, nonce: hexBytes("000000000000000000000002"), authenticating: [1, 2, 3])
        }
        #expect(throws: SymmetricCryptoError.authenticationFailed) { try cipher.open(sealed, nonce: Self.nonce, authenticating: [1, 2]) }
        #expect(throws: SymmetricCryptoError.authenticationFailed) { try cipher.open(sealed, nonce: Self.nonce, authenticating: [UInt8]()) }
    }

    @Test func truncatedSealedMessagesAreRefused() throws {
        let cipher = try ChaCha20Poly1305(key: Self.key)
        let sealed = try cipher.seal(Array("one purchase".utf8), nonce: Self.nonce, authenticating: [UInt8]())
        for count in 0..<sealed.count {
            #expect(throws: SymmetricCryptoError.authenticationFailed) {
                try cipher.open(sealed.prefix(count), nonce: Self.nonce, authenticating: [UInt8]())
            }
        }
    }

    @Test func wrongSizesAreRefused() throws {
        #expect(throws: SymmetricCryptoError.wrongKeySize(expected: 32, actual: 31)) { try ChaCha20Poly1305(key: Self.key.dropLast()) }
        #expect(throws: SymmetricCryptoError.wrongKeySize(expected: 32, actual: 33)) { try ChaCha20Poly1305(key: Self.key + [0]) }
        let cipher = try ChaCha20Poly1305(key: Self.key)
        #expect(throws: SymmetricCryptoError.wrongNonceSize(expected: 12, actual: 8)) {
            try cipher.seal([1], nonce: [UInt8](repeating: 0, count: 8), authenticating: [UInt8]())
        }
        #expect(throws: SymmetricCryptoError.outputSizeOutOfRange(8161)) {
            try HKDFSHA256.deriveKey(inputKeyMaterial: [1], salt: [UInt8](), info: [UInt8](), outputByteCount: 8161)
        }
        #expect(throws: SymmetricCryptoError.outputSizeOutOfRange(-1)) {
            try HKDFSHA256.expand(pseudorandomKey: Self.key, info: [UInt8](), outputByteCount: -1)
        }
        #expect(throws: SymmetricCryptoError.pseudorandomKeyTooShort(31)) {
            try HKDFSHA256.expand(pseudorandomKey: Self.key.dropLast(), info: [UInt8](), outputByteCount: 32)
        }
        #expect(try HKDFSHA256.expand(pseudorandomKey: Self.key, info: [UInt8](), outputByteCount: 8160).count == 8160)
    }

    /// Non-contiguous inputs (a reversed view) give what their bytes copied out give.
    @Test func anyCollectionWorksLikeItsBytes() throws {
        let cipher = try ChaCha20Poly1305(key: Self.key.reversed())
        let message = (0..<100).map { UInt8($0) }
        #expect(try cipher.seal(message.reversed(), nonce: Self.nonce.reversed(), authenticating: message.lazy.map { $0 ^ 1 })
            == ChaCha20Poly1305(key: Array(Self.key.reversed())).seal(Array(message.reversed()), nonce: Array(Self.nonce.reversed()), authenticating: message.map { $0 ^ 1 }))
        #expect(HMACSHA256.authenticationCode(for: message.reversed(), key: Self.key.reversed())
            == HMACSHA256.authenticationCode(for: Array(message.reversed()), key: Array(Self.key.reversed())))
    }

    /// Poly1305 fed a message in pieces of any size gives the tag of the whole.
    @Test func poly1305InPiecesMatchesWhole() {
        var random = SplitMix(seed: 0x1305)
        let key = (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let message = (0..<200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var whole = key.withUnsafeBytes { Poly1305(key: $0) }
        message.withUnsafeBytes { whole.update($0) }
        let expected = whole.finalize()
        for piece in [1, 3, 15, 16, 17, 50] {
            var authenticator = key.withUnsafeBytes { Poly1305(key: $0) }
            for start in stride(from: 0, to: message.count, by: piece) {
                message[start..<min(start + piece, message.count)].withUnsafeBytes { authenticator.update($0) }
            }
            #expect(authenticator.finalize() == expected, "pieces of \(piece)")
        }
    }

    /// Poly1305 on accumulators known in advance: with r = 0 it stays 0, so the tag is s; with
    /// r = 1 it is the sum of the blocks, each with its 2¹²⁸ bit, reduced modulo p = 2¹³⁰ − 5.
    @Test func poly1305TagsOfKnownAccumulators() {
        let s = (0..<16).map { UInt8($0) }
        var zeroR = ([UInt8](repeating: 0, count: 16) + s).withUnsafeBytes { Poly1305(key: $0) }
        [UInt8](repeating: 0xff, count: 64).withUnsafeBytes { zeroR.update($0) }
        #expect(zeroR.finalize() == s)
        var oneR = ([1] + [UInt8](repeating: 0, count: 15) + [UInt8](repeating: 0, count: 16)).withUnsafeBytes { Poly1305(key: $0) }
        [UInt8](repeating: 0xff, count: 16).withUnsafeBytes { oneR.update($0) }
        // h = 2¹²⁸ + (2¹²⁸ − 1) = 2¹²⁹ − 1; its low 128 bits are all ones.
        #expect(oneR.finalize() == [UInt8](repeating: 0xff, count: 16))
        // Two blocks that sum to p + k for k = 0…3 (2¹²⁹ − 1, then 2¹²⁸ + 2¹²⁸ − 4 + k): the tag is
        // k, which only the final subtraction of p gives (no Wycheproof vector lands there).
        for k in 0..<4 {
            var authenticator = ([1] + [UInt8](repeating: 0, count: 31)).withUnsafeBytes { Poly1305(key: $0) }
            let blocks = [UInt8](repeating: 0xff, count: 16) + [0xfc + UInt8(k)] + [UInt8](repeating: 0xff, count: 15)
            blocks.withUnsafeBytes { authenticator.update($0) }
            #expect(authenticator.finalize() == [UInt8(k)] + [UInt8](repeating: 0, count: 15), "h = p + \(k)")
        }
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTimeComparison.equal([1, 2, 3], [1, 2, 3]))
        #expect(ConstantTimeComparison.equal([UInt8](), [UInt8]()))
        #expect(!ConstantTimeComparison.equal([1, 2, 3], [1, 2]))
        for index in 0..<3 {
            var other: [UInt8] = [1, 2, 3]
            other[index] ^= 0x40
            #expect(!ConstantTimeComparison.equal([1, 2, 3], other))
        }
    }

    @Test func secretBytesTakenFromAnArrayLeaveZerosBehind() throws {
        var key = Self.key
        let secret = SecretBytes(taking: &key)
        #expect(key == [UInt8](repeating: 0, count: 32))
        #expect(secret.count == 32)
        #expect(secret.withUnsafeBytes { Array($0) } == Self.key)
        #expect(try ChaCha20Poly1305(key: secret).seal([7], nonce: Self.nonce, authenticating: [UInt8]())
            == ChaCha20Poly1305(key: Self.key).seal([7], nonce: Self.nonce, authenticating: [UInt8]()))
    }

    @Test func zeroizationOverwritesInPlace() {
        var bytes: [UInt8] = [1, 2, 3, 4]
        Zeroization.overwrite(&bytes)
        #expect(bytes == [0, 0, 0, 0])
    }

    /// The key longer than a block is hashed first, so it and its SHA-256 give the same code.
    @Test func hmacKeyLongerThanABlockIsHashed() {
        let long = (0..<100).map { UInt8($0) }
        #expect(HMACSHA256.authenticationCode(for: [1, 2, 3], key: long) == HMACSHA256.authenticationCode(for: [1, 2, 3], key: SHA256.hash(long)))
        #expect(HMACSHA256.authenticationCode(for: [1, 2, 3], key: long) != HMACSHA256.authenticationCode(for: [1, 2, 3], key: long.prefix(64)))
    }
}
