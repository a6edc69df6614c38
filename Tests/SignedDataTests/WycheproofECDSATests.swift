import Foundation
import Cryptography
import Testing

/// Every vector of Project Wycheproof's ECDSA verification files for P-256 / SHA-256 and
/// P-384 / SHA-384, in both signature encodings (see Vectors/README.md), gives its expected
/// result, with the key prepared either way (its scalar split in two or in four).
///
/// "acceptable" vectors (legal but dubious encodings such as BER lengths, or weak parameters)
/// are refused: a signature is accepted in exactly one spelling, so these must verify false.
/// The files of this version contain none; the rule is here for when they are updated.
@Suite struct WycheproofECDSATests {
    struct VectorFile: CustomTestStringConvertible, Sendable {
        var name: String
        var curve: EllipticCurve
        var isDER: Bool
        var testDescription: String { name }
    }

    static let files = [
        VectorFile(name: "ecdsa_secp256r1_sha256_p1363_test.json", curve: .p256, isDER: false),
        VectorFile(name: "ecdsa_secp256r1_sha256_test.json", curve: .p256, isDER: true),
        VectorFile(name: "ecdsa_secp384r1_sha384_p1363_test.json", curve: .p384, isDER: false),
        VectorFile(name: "ecdsa_secp384r1_sha384_test.json", curve: .p384, isDER: true),
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    struct Document: Decodable {
        var numberOfTests: Int
        var testGroups: [Group]
    }

    struct Group: Decodable {
        var publicKey: PublicKey
        var sha: String
        var tests: [Vector]
    }

    struct PublicKey: Decodable {
        var curve: String
        var uncompressed: String
    }

    struct Vector: Decodable {
        var tcId: Int
        var comment: String
        var msg: String
        var sig: String
        var result: String
    }

    @Test(arguments: files, [ECDSAPublicKey.Preparation.standard, .manySignatures])
    func everyVectorGivesItsExpectedResult(file: VectorFile, preparation: ECDSAPublicKey.Preparation) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(file.name))
        let document = try JSONDecoder().decode(Document.self, from: data)
        var checked = 0
        var counts: [String: Int] = [:]
        var failures: [String] = []
        for group in document.testGroups {
            #expect(group.publicKey.curve == (file.curve == .p256 ? "secp256r1" : "secp384r1"))
            let hash: ([UInt8]) -> [UInt8] = group.sha == "SHA-256" ? { SHA256.hash($0) } : { SHA384.hash($0) }
            #expect(group.sha == (file.curve == .p256 ? "SHA-256" : "SHA-384"))
            // Every group's key is a valid point; a key the decoder refused would fail each valid vector below.
            let key = try? ECDSAPublicKey(
                curve: file.curve, x962Representation: hexBytes(group.publicKey.uncompressed), preparation: preparation)
            for vector in group.tests {
                checked += 1
                counts[vector.result, default: 0] += 1
                let digest = hash(hexBytes(vector.msg))
                let signature = hexBytes(vector.sig)
                let accepted = key.map {
                    file.isDER ? $0.isValidSignature(der: signature, digest: digest) : $0.isValidSignature(raw: signature, digest: digest)
                } ?? false
                let expected: Bool
                switch vector.result {
                case "valid": expected = true
                case "invalid", "acceptable": expected = false
                default:
                    failures.append("tcId \(vector.tcId): unknown result \(vector.result)")
                    continue
                }
                if accepted != expected {
                    failures.append("tcId \(vector.tcId) (\(vector.comment)): expected \(vector.result), got \(accepted ? "accepted" : "refused")")
                }
            }
        }
        #expect(checked == document.numberOfTests)
        #expect(counts["valid", default: 0] > 100)
        #expect(failures.isEmpty, "\(failures.count) of \(checked) vectors:\n\(failures.joined(separator: "\n"))")
    }
}
