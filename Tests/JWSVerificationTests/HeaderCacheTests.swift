import StoreKitFormats
import Foundation
@testable import SignedData
import Testing

/// The protected-header cache keeps what a header gives (its `alg`, `x5c`, the chain's verdict
/// and a SHA-256 midstate), never anything about a payload or a signature: a JWS under a cached
/// header is still hashed and verified whole, and a header that differs by one byte is a
/// different entry.
@Suite("JWS header cache", .timeLimit(.minutes(2)))
struct HeaderCacheTests {
    /// The `signedTransactionInfo` JWS of a notification line.
    static func signedTransaction(_ line: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let data = try #require(object["data"] as? [String: Any])
        return try #require(data["signedTransactionInfo"] as? String)
    }

    static func encodedHeader(_ jws: String) -> [UInt8] { Array(jws.utf8.prefix { $0 != UInt8(ascii: ".") }) }

    /// The real Apple-signed line whose JWS carries the same header as tampered fixture `file`.
    static func realLine(sharingHeaderWith file: String) throws -> (real: String, tampered: String) {
        let tampered = try #require(try Vectors.lines("tampered/\(file).jsonl").first)
        let header = encodedHeader(try signedTransaction(tampered))
        let real = try Vectors.lines("apple/qysmat-notifications.jsonl").first { try encodedHeader(signedTransaction($0)) == header }
        return (try #require(real, "no real notification shares \(file)'s header"), tampered)
    }

    @Test("Under a header cached by a verified payload, a changed payload and another key's signature are refused", arguments: ["payload-byte-changed", "other-key-signature"])
    func cachedHeaderStillVerifiesEachSignature(file: String) throws {
        let (real, tampered) = try Self.realLine(sharingHeaderWith: file)
        for catalog in ["Sandbox.json", "Sandbox-test-root.json"] {
            let signatures = try Vectors.catalog(catalog).signatures
            #expect(try EventDecoder.decode(line: real.utf8, signatures: signatures).count == 2)
            let header = Self.encodedHeader(try Self.signedTransaction(real))
            #expect(JWSHeaderCache.shared.header(encoded: header) != nil, "the verified payload's header is cached")
            for requirement in [signatures, .optional] {
                do {
                    let events = try EventDecoder.decode(line: tampered.utf8, signatures: requirement)
                    Issue.record("\(file) accepted under a cached header: \(events)")
                } catch {
                    #expect(error.description.contains("bad signature"), "\(file): \(error)")
                }
            }
            // And the real one still passes afterwards: a refusal does not poison the entry.
            #expect(try EventDecoder.decode(line: real.utf8, signatures: signatures).count == 2)
        }
    }

    @Test("A header differing from a cached one only where it spells alg is read afresh and refused for what it says")
    func differentHeaderBytesAreADifferentEntry() throws {
        let signatures = try Vectors.catalog("Sandbox.json").signatures
        let tampered = try #require(try Vectors.lines("tampered/alg-changed.jsonl").first)
        let changedHeader = Self.encodedHeader(try Self.signedTransaction(tampered))
        // The real header it was made from: the same length, three base64 symbols apart (the
        // ones that spell ES256 / ES384).
        let real = try Vectors.lines("apple/qysmat-notifications.jsonl").first {
            let header = Self.encodedHeader(try Self.signedTransaction($0))
            return header.count == changedHeader.count && header != changedHeader
                && zip(header, changedHeader).filter { $0 != $1 }.count <= 3
        }
        let realLine = try #require(real, "no real notification differs from alg-changed in its alg only")
        #expect(try EventDecoder.decode(line: realLine.utf8, signatures: signatures).count == 2)
        for requirement in [signatures, .optional] {
            do {
                _ = try EventDecoder.decode(line: tampered.utf8, signatures: requirement)
                Issue.record("alg-changed accepted beside a cached header three symbols away")
            } catch {
                #expect(error.description.contains("algorithm: JWS alg 'ES384' is not ES256"), "\(error)")
            }
        }
    }

    @Test("The verifier refuses a prepared header that is not the one the JWS carries")
    func preparedHeaderMustMatch() throws {
        let real = try #require(try Vectors.lines("apple/qysmat-notifications.jsonl").first)
        let jws = try JWSCompact(try Self.signedTransaction(real))
        let verifier = JWSVerifier()
        _ = try EventDecoder.decode(line: real.utf8, signatures: .required)
        let own = try #require(JWSHeaderCache.shared.header(encoded: jws.encodedHeader))
        // Intact with its own header (trusted or not at this date does not matter here).
        _ = try verifier.verify(jws, header: own, signedDate: 1_700_000_000)
        // The same alg and chain under other header text (one byte changed): refused before any
        // verification, so a header prepared for one JWS can never vouch for another.
        var otherText = own.encoded
        otherText[otherText.count - 1] = otherText[otherText.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = JWSProtectedHeader(encoded: otherText, algorithm: own.algorithm, chain: own.chain)
        #expect(throws: JWSFailure.malformed("JWS header differs from the prepared one")) {
            try verifier.verify(jws, header: other, signedDate: 1_700_000_000)
        }
    }

    /// On a cache of its own: flooding the shared one would evict the entries the tests above,
    /// running in parallel, expect to find.
    @Test("The cache stays bounded under many distinct headers")
    func bounded() throws {
        let cache = JWSHeaderCache()
        let texts = (0..<(JWSHeaderCache.capacity * 3)).map { Array("header-\($0)".utf8) }
        for (index, text) in texts.enumerated() {
            cache.insert(JWSProtectedHeader(encoded: text, algorithm: "none", chain: nil))
            // What the cache still finds among everything inserted so far: the last one always, never more than it may hold.
            let held = texts[...index].filter { cache.header(encoded: $0) != nil }.count
            #expect(cache.header(encoded: text) != nil)
            #expect(held <= JWSHeaderCache.capacity, "after \(index + 1) headers the cache holds \(held)")
        }
    }
}
