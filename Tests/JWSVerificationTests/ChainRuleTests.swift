import StoreKitFormats
import Foundation
@testable import SignedData
import Testing
import TestSupport

/// The JWS rules through the decoder every caller uses, on real App Store data and on the
/// tampered fixtures.
@Suite("JWS chain rules", .timeLimit(.minutes(2)))
struct ChainRuleTests {
    @Test("Apple's real Sandbox notifications verify under required signatures")
    func realSandboxNotifications() throws {
        let catalog = try Vectors.catalog("Sandbox.json")
        #expect(catalog.signatures.requirement == .required, "Sandbox defaults to required")
        var count = 0
        for line in try Vectors.lines("apple/qysmat-notifications.jsonl") {
            let events = try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures)
            #expect(events.count == 2)
            for event in events { try catalog.validate(event) }
            count += events.count
        }
        #expect(count == 6)
    }

    @Test("Xcode-signed data: accepted by default (optional), refused under required, accepted with its certificate trusted")
    func xcodeSignedData() throws {
        let files = ["apple/apple-xcode-signed-transaction.jws", "apple/apple-xcode-signed-renewal-info.jws"]
        let byDefault = try Vectors.catalog("Xcode-default.json")
        #expect(byDefault.signatures.requirement == .optional)
        let required = try Vectors.catalog("Xcode-required.json")
        let trusted = try Vectors.catalog("Xcode-trusted.json")
        #expect(trusted.signatures.requirement == .required)
        for file in files {
            let line = try Vectors.text(file)
            #expect(try EventDecoder.decode(line: line.utf8, signatures: byDefault.signatures).count == 1)
            #expect(try EventDecoder.decode(line: line.utf8, signatures: trusted.signatures).count == 1)
            #expect(throws: EventDecodingError.self) { try EventDecoder.decode(line: line.utf8, signatures: required.signatures) }
            do {
                _ = try EventDecoder.decode(line: line.utf8, signatures: required.signatures)
            } catch {
                #expect(error.description.contains("untrusted root"), "\(error)")
            }
        }
    }

    @Test("Each tampered fixture is refused under required signatures with its reason", arguments: Vectors.tampered.map(\.file))
    func tamperedRefused(file: String) throws {
        let reason = try #require(Vectors.tampered.first { $0.file == file }?.reason)
        let catalog = try Vectors.catalog("Sandbox-test-root.json")
        let line = try #require(try Vectors.lines("tampered/\(file).jsonl").first)
        do {
            let events = try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures)
            Issue.record("\(file) accepted: \(events)")
        } catch {
            #expect(error.description.hasPrefix("data.signedTransactionInfo: "), "\(error)")
            #expect(error.description.contains(reason), "\(file): \(error)")
        }
    }

    @Test("The control: the same chain meeting every rule is accepted")
    func goodTestRoot() throws {
        let catalog = try Vectors.catalog("Sandbox-test-root.json")
        let line = try #require(try Vectors.lines("tampered/good-test-root.jsonl").first)
        #expect(try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures).count == 1)
        // Without the test root among the trusted roots, the same line is refused.
        #expect(throws: EventDecodingError.self) { try EventDecoder.decode(line: line.utf8, signatures: .required) }
    }

    @Test("Under optional signatures only what is not intact is refused", arguments: Vectors.tampered.map(\.file))
    func optionalSignatures(file: String) throws {
        let line = try #require(try Vectors.lines("tampered/\(file).jsonl").first)
        let result = Result { try EventDecoder.decode(line: line.utf8, signatures: .optional) }
        if Vectors.notIntact.contains(file) {
            #expect(throws: EventDecodingError.self) { try result.get() }
        } else {
            #expect(try result.get().count == 1, "\(file): an intact, untrusted JWS is accepted as unverified")
        }
    }

    @Test("Unsigned payloads are refused under required and accepted under optional")
    func unsignedPayloads() throws {
        let transaction = #"{"transactionId":"1","productId":"p","purchaseDate":1679899642000,"bundleId":"com.app.qysmat","environment":"Sandbox"}"#
        let renewal = #"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1679899642000}"#
        for line in [transaction, renewal] {
            #expect(try EventDecoder.decode(line: line.utf8, signatures: .optional).count == 1)
            do {
                _ = try EventDecoder.decode(line: line.utf8, signatures: .required)
                Issue.record("accepted unsigned: \(line)")
            } catch {
                #expect(error.description.contains("unsigned payload"), "\(error)")
            }
        }
    }

    @Test("A notification body wrapped in one more JWS verifies the outer and the inner ones")
    func signedPayloadWrapper() throws {
        let inner = try #require(try Vectors.lines("apple/qysmat-notifications.jsonl").first)
        let catalog = try Vectors.catalog("Sandbox.json")
        // The outer JWS is signed by the test key: intact, untrusted.
        let wrapped = #"{"signedPayload":""# + TestSigner.jws(inner) + #""}"#
        #expect(try EventDecoder.decode(line: wrapped.utf8, signatures: .optional).count == 2)
        do {
            _ = try EventDecoder.decode(line: wrapped.utf8, signatures: catalog.signatures)
            Issue.record("an untrusted outer JWS was accepted under required")
        } catch {
            #expect(error.description.hasPrefix("signedPayload: untrusted"), "\(error)")
        }
        // Trusting the signer of the outer JWS accepts the whole: the inner ones are Apple's.
        var trusting = catalog.signatures
        trusting.trustedRoots = [try X509Certificate(der: Data(contentsOf: URL(fileURLWithPath: TestSigner.certificatePath)))]
        #expect(try EventDecoder.decode(line: wrapped.utf8, signatures: trusting).count == 2)
    }

    @Test("A chain read again from the cache is the chain verified the first time, and a broken one stays refused")
    func chainCache() throws {
        let cache = ChainCache()
        let lines = try Vectors.lines("apple/qysmat-notifications.jsonl")
        var chains: [[String]] = []
        for line in lines {
            let jws = try #require(line.split(separator: "\"").first { $0.hasPrefix("eyJ") && $0.split(separator: ".").count == 3 })
            let compact = try JWSCompact(jws)
            let header = try JSONSerialization.jsonObject(with: Data(compact.header)) as? [String: Any]
            chains.append(try #require(header?["x5c"] as? [String]))
        }
        for chain in chains + chains {
            let cached = try cache.chain(chain), fresh = try ChainCache().chain(chain)
            #expect(cached.certificates.map(\.der) == fresh.certificates.map(\.der))
            #expect(cached.rootFingerprint == fresh.rootFingerprint && cached.lastIsSelfSigned == fresh.lastIsSelfSigned)
        }
        // The leaf and its issuer swapped: each link's signature fails, on every read.
        let broken = [chains[0][1], chains[0][0]] + chains[0].dropFirst(2)
        for _ in 0..<2 {
            #expect(throws: JWSFailure.brokenChain(index: 0)) { try cache.chain(broken) }
        }
    }
}
