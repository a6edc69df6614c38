import Foundation
import Cryptography
import Testing

/// Every vector of Project Wycheproof's ChaCha20-Poly1305, HMAC-SHA256 and HKDF-SHA256 files
/// (see Vectors/README.md) gives its expected result: a `valid` one its exact output, an `invalid`
/// one a refusal. The files hold no `acceptable` vectors; any that appear may go either way and
/// are counted.
@Suite struct WycheproofSymmetricTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    struct Document<Group: Decodable>: Decodable {
        var algorithm: String
        var numberOfTests: Int
        var testGroups: [Group]
    }

    static func load<Group: Decodable>(_ name: String, as _: Group.Type) throws -> Document<Group> {
        try JSONDecoder().decode(Document<Group>.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Tallies of one file's vectors and the descriptions of those that came out wrong.
    struct Outcome {
        var checked = 0
        var results: [String: Int] = [:]
        var failures: [String] = []

        mutating func record(tcId: Int, comment: String, result: String, accepted: Bool) {
            checked += 1
            results[result, default: 0] += 1
            switch result {
            case "valid" where !accepted: failures.append("tcId \(tcId) (\(comment)): valid, but refused")
            case "invalid" where accepted: failures.append("tcId \(tcId) (\(comment)): invalid, but accepted")
            case "valid", "invalid", "acceptable": break
            default: failures.append("tcId \(tcId): unknown result \(result)")
            }
        }
    }

    struct AEADGroup: Decodable {
        var ivSize: Int
        var keySize: Int
        var tagSize: Int
        var tests: [AEADVector]
    }

    struct AEADVector: Decodable {
        var tcId: Int
        var comment: String
        var key: String
        var iv: String
        var aad: String
        var msg: String
        var ct: String
        var tag: String
        var result: String
    }

    /// A vector is accepted when opening `ct ‖ tag` gives `msg`, and then sealing `msg` must give
    /// `ct ‖ tag` exactly; a refusal must be an error (never a wrong plaintext), of the kind its
    /// flaw calls for.
    @Test func chaCha20Poly1305() throws {
        let document = try Self.load("chacha20_poly1305_test.json", as: AEADGroup.self)
        #expect(document.algorithm == "CHACHA20-POLY1305")
        var outcome = Outcome()
        for group in document.testGroups {
            #expect(group.keySize == 256 && group.tagSize == 128)
            for vector in group.tests {
                let cipher = try ChaCha20Poly1305(key: hexBytes(vector.key))
                let (nonce, aad, message) = (hexBytes(vector.iv), hexBytes(vector.aad), hexBytes(vector.msg))
                let sealed = hexBytes(vector.ct) + hexBytes(vector.tag)
                var accepted = false
                do {
                    let opened = try cipher.open(sealed, nonce: nonce, authenticating: aad)
                    accepted = true
                    if opened != message { outcome.failures.append("tcId \(vector.tcId): opened to the wrong plaintext") }
                    if try cipher.seal(message, nonce: nonce, authenticating: aad) != sealed {
                        outcome.failures.append("tcId \(vector.tcId): sealing gave other bytes")
                    }
                } catch {
                    let expected: SymmetricCryptoError =
                        nonce.count == 12 ? .authenticationFailed : .wrongNonceSize(expected: 12, actual: nonce.count)
                    if error != expected { outcome.failures.append("tcId \(vector.tcId): refused with \(error), expected \(expected)") }
                    if nonce.count != 12, (try? cipher.seal(message, nonce: nonce, authenticating: aad)) != nil {
                        outcome.failures.append("tcId \(vector.tcId): sealed under a \(nonce.count)-byte nonce")
                    }
                }
                outcome.record(tcId: vector.tcId, comment: vector.comment, result: vector.result, accepted: accepted)
            }
        }
        #expect(outcome.checked == document.numberOfTests)
        #expect(outcome.results["valid", default: 0] > 200 && outcome.results["invalid", default: 0] > 50)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) of \(outcome.checked):\n\(outcome.failures.joined(separator: "\n"))")
    }

    struct MACGroup: Decodable {
        var keySize: Int
        var tagSize: Int
        var tests: [MACVector]
    }

    struct MACVector: Decodable {
        var tcId: Int
        var comment: String
        var key: String
        var msg: String
        var tag: String
        var result: String
    }

    /// A vector is accepted when the code, cut to the group's tag size, equals its tag; where the
    /// tag is the full 32 bytes, `isValidAuthenticationCode` must agree.
    @Test func hmacSHA256() throws {
        let document = try Self.load("hmac_sha256_test.json", as: MACGroup.self)
        #expect(document.algorithm == "HMACSHA256")
        var outcome = Outcome()
        for group in document.testGroups {
            for vector in group.tests {
                let (key, message, tag) = (hexBytes(vector.key), hexBytes(vector.msg), hexBytes(vector.tag))
                #expect(key.count * 8 == group.keySize)
                let code = HMACSHA256.authenticationCode(for: message, key: key)
                #expect(code.count == HMACSHA256.byteCount)
                let accepted = ConstantTimeComparison.equal(code.prefix(group.tagSize / 8), tag)
                if group.tagSize == 256, HMACSHA256.isValidAuthenticationCode(tag, for: message, key: key) != accepted {
                    outcome.failures.append("tcId \(vector.tcId): isValidAuthenticationCode disagrees")
                }
                if group.tagSize < 256, HMACSHA256.isValidAuthenticationCode(tag, for: message, key: key) {
                    outcome.failures.append("tcId \(vector.tcId): a truncated code was accepted as a whole one")
                }
                outcome.record(tcId: vector.tcId, comment: vector.comment, result: vector.result, accepted: accepted)
            }
        }
        #expect(outcome.checked == document.numberOfTests)
        #expect(outcome.results["valid", default: 0] > 50 && outcome.results["invalid", default: 0] > 100)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) of \(outcome.checked):\n\(outcome.failures.joined(separator: "\n"))")
    }

    struct KDFGroup: Decodable {
        var keySize: Int
        var tests: [KDFVector]
    }

    struct KDFVector: Decodable {
        var tcId: Int
        var comment: String
        var ikm: String
        var salt: String
        var info: String
        var size: Int
        var okm: String
        var result: String
    }

    /// A vector is accepted when the derivation succeeds with its output; a refused size must be
    /// refused with an error naming it.
    @Test func hkdfSHA256() throws {
        let document = try Self.load("hkdf_sha256_test.json", as: KDFGroup.self)
        #expect(document.algorithm == "HKDF-SHA-256")
        var outcome = Outcome()
        for group in document.testGroups {
            for vector in group.tests {
                var accepted = false
                do {
                    let output = try HKDFSHA256.deriveKey(
                        inputKeyMaterial: hexBytes(vector.ikm), salt: hexBytes(vector.salt), info: hexBytes(vector.info),
                        outputByteCount: vector.size)
                    accepted = true
                    if output != hexBytes(vector.okm) { outcome.failures.append("tcId \(vector.tcId): wrong output") }
                } catch {
                    if error != .outputSizeOutOfRange(vector.size) { outcome.failures.append("tcId \(vector.tcId): refused with \(error)") }
                }
                outcome.record(tcId: vector.tcId, comment: vector.comment, result: vector.result, accepted: accepted)
            }
        }
        #expect(outcome.checked == document.numberOfTests)
        #expect(outcome.results["valid", default: 0] > 80 && outcome.results["invalid", default: 0] == 3)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.count) of \(outcome.checked):\n\(outcome.failures.joined(separator: "\n"))")
    }
}
