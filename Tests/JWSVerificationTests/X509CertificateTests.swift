import Foundation
@testable import Cryptography
@testable import SignedData
import Testing
import TestSupport

@Suite("X.509 certificates") struct X509CertificateTests {
    /// The three certificates of Apple's real chain, leaf first.
    static func appleChain() throws -> [[UInt8]] {
        let line = try #require(try Vectors.lines("apple/qysmat-notifications.jsonl").first)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        let jws = try #require((object?["data"] as? [String: Any])?["signedTransactionInfo"] as? String)
        let header = try JSONSerialization.jsonObject(with: Data(try JWSCompact(jws).header)) as? [String: Any]
        return try #require(header?["x5c"] as? [String]).map { try #require(Base64.decode(standard: $0)) }
    }

    @Test("Apple's chain: keys, validity, CA flags, Apple's OIDs, links, the pinned root")
    func appleChain() throws {
        let chain = try Self.appleChain().map { try X509Certificate(der: $0) }
        #expect(chain.count == 3)
        #expect(chain[0].publicKey.curve == .p256)
        #expect(chain[1].publicKey.curve == .p384)
        #expect(chain[2].publicKey.curve == .p384)
        #expect(chain.map(\.isCertificateAuthority) == [false, true, true])
        #expect(chain[0].hasExtension(.appleReceiptSigningLeaf))
        #expect(!chain[0].hasExtension(.appleWWDRIntermediate))
        #expect(chain[1].hasExtension(.appleWWDRIntermediate))
        // notBefore Aug 25 02:50:34 2021 GMT, notAfter Sep 24 02:50:33 2023 GMT (openssl x509 -dates).
        #expect(chain[0].notBefore == 1_629_859_834)
        #expect(chain[0].notAfter == 1_695_523_833)
        #expect(chain[2].notAfter == 2_187_800_346)
        let links = [chain[0].isSigned(by: chain[1]), chain[1].isSigned(by: chain[2]), chain[2].isSelfSigned]
        #expect(links == [true, true, true])
        let leafByRoot = chain[0].isSigned(by: chain[2])
        #expect(!leafByRoot)
        let pinned = SHA256.hash(chain[2].der) == JWSVerifier.appleRootCAG3Fingerprint
        #expect(pinned)
    }

    @Test("Every single-byte truncation of the leaf is refused, never a crash")
    func truncations() throws {
        let leaf = try Self.appleChain()[0]
        for length in 0..<leaf.count {
            #expect(throws: X509Error.self) { try X509Certificate(der: leaf[..<length]) }
        }
        #expect(throws: X509Error.self) { try X509Certificate(der: leaf + [0x00]) }
    }

    @Test("Flipping any byte of the leaf either refuses it or breaks its signature")
    func flips() throws {
        let chain = try Self.appleChain()
        let issuer = try X509Certificate(der: chain[1])
        for index in stride(from: 0, to: chain[0].count, by: 7) {
            var bytes = chain[0]
            bytes[index] ^= 0x20
            guard let certificate = try? X509Certificate(der: bytes) else { continue }
            let verifies = certificate.isSigned(by: issuer)
            #expect(!verifies, "byte \(index) flipped still verifies")
        }
    }

    @Test("PEM and DER files of the same certificate are the same certificate")
    func pem() throws {
        let der = try Self.appleChain()[2]
        let text = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let pem = "-----BEGIN CERTIFICATE-----\r\n" + text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n-----END CERTIFICATE-----\r\n"
        let fromPEM = try X509Certificate(fileContents: Array(pem.utf8)), fromDER = try X509Certificate(fileContents: der)
        let same = try fromPEM == X509Certificate(der: der) && fromDER == X509Certificate(der: der)
        #expect(same)
        let two = pem + pem
        #expect(throws: X509Error.self) { try X509Certificate(fileContents: Array(two.utf8)) }
        #expect(throws: X509Error.self) { try X509Certificate(fileContents: Array("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n".utf8)) }
    }
}
