import Entitlements
import StoreKitFormats
import Foundation
import Cryptography
import TestSupport
import Testing

/// App transactions (`paidAppGrant`) and developer grants (`grantKeys`) in the decoder, the fact
/// store and the engine, against the sample catalog (bundle `com.irenews.geko`, entitlement `plus`).
@Suite struct OutsidePurchaseModelTests {
    static let keyId = "support-2026"

    static func grantKey() throws -> ECDSAPublicKey {
        try ECDSAPublicKey(publicKeyFile: try Data(contentsOf: URL(fileURLWithPath: TestSigner.grants + "/grant-key.pub.pem")))
    }

    /// The sample catalog with the fixtures' grant key and `requirement`.
    static func catalog(_ requirement: SignaturePolicy.Requirement = .optional) throws -> Catalog {
        var catalog = try Fixtures.catalog()
        catalog.signatures = SignaturePolicy(requirement: requirement, grantKeys: [keyId: try grantKey()])
        return catalog
    }

    static func grant(id: String = "g1", expires: String? = nil, revoked: Bool = false, signed: String) -> String {
        var object: [String: JSONValue] = [
            "grantId": .string(id), "entitlement": "plus", "revoked": .bool(revoked), "reason": "support",
            "bundleId": .string(Fixtures.bundleId), "signedDate": .double(Fixtures.ms(signed)),
        ]
        object["expiresDate"] = expires.map { .double(Fixtures.ms($0)) } ?? .null
        return JSONValue.object(object).serialized
    }

    static func evaluate(_ lines: [String], catalog: Catalog, now: String) throws -> EngineResult {
        var store = FactStore()
        for line in lines { store.insert(contentsOf: try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures)) }
        return EntitlementEngine(catalog: catalog).evaluate(store, now: Fixtures.date(now))
    }

    @Test("Versions compare as dotted numbers, a missing part counting as 0")
    func dottedVersionOrder() throws {
        let lower: [(String, String)] = [("1.9", "1.10"), ("1.2.3", "2.0"), ("2", "2.0.1"), ("0.9", "1")]
        for (a, b) in lower {
            let x = try #require(PaidAppGrant.version(a)), y = try #require(PaidAppGrant.version(b))
            #expect(PaidAppGrant.isLower(x, than: y), "\(a) < \(b)")
            #expect(!PaidAppGrant.isLower(y, than: x), "\(b) !< \(a)")
        }
        #expect(!PaidAppGrant.isLower([2], than: [2, 0, 0]))
        for bad in ["", "1.", ".1", "1.a", "1..2", "-1", "1.0b", "１.0"] { #expect(PaidAppGrant.version(bad) == nil, "\(bad)") }
    }

    @Test("A grant counts only signed with a grant key: an x5c-signed grant is refused, and a grant key signs nothing else")
    func grantKeysSignGrantsOnly() throws {
        let catalog = try Self.catalog()
        let payload = Self.grant(signed: "2026-11-20T09:00:00Z")
        let viaChain = #expect(throws: EventDecodingError.self) { try EventDecoder.decode(line: TestSigner.jws(payload).utf8, signatures: catalog.signatures) }
        #expect(viaChain?.description.contains("grantKeys") == true, "\(String(describing: viaChain))")
        let transaction = Fixtures.transaction(id: "t1", purchased: "2026-11-20T09:00:00Z")
        let viaKey = #expect(throws: EventDecodingError.self) {
            try EventDecoder.decode(line: TestSigner.grantJWS(transaction).utf8, signatures: catalog.signatures)
        }
        #expect(viaKey?.description.contains("not a grant") == true, "\(String(describing: viaKey))")
        let events = try EventDecoder.decode(line: TestSigner.grantJWS(payload).utf8, signatures: catalog.signatures)
        guard case .grant(let grant)? = events.first else { Issue.record("not a grant: \(events)"); return }
        #expect(grant.keyId == Self.keyId && grant.grantId == "g1" && grant.expiresDate == nil && !grant.revoked)
    }

    @Test("For one grantId the newest signedDate is in force: an older replay changes nothing, a newer revocation ends it")
    func grantVersions() throws {
        let catalog = try Self.catalog(.required)
        let first = TestSigner.grantJWS(Self.grant(signed: "2026-11-20T09:00:00Z"))
        let revocation = TestSigner.grantJWS(Self.grant(revoked: true, signed: "2026-11-21T09:00:00Z"))
        var store = FactStore()
        #expect(store.insert(contentsOf: try EventDecoder.decode(line: first.utf8, signatures: catalog.signatures)))
        #expect(store.insert(contentsOf: try EventDecoder.decode(line: revocation.utf8, signatures: catalog.signatures)))
        #expect(!store.insert(contentsOf: try EventDecoder.decode(line: first.utf8, signatures: catalog.signatures)))
        let result = EntitlementEngine(catalog: catalog).evaluate(store, now: Fixtures.date("2026-11-22T00:00:00Z"))
        #expect(result.entitlements["plus"]?.active == false)
        #expect(store.newestSignedDate == nil, "a grant does not move the clock floor")
    }

    @Test("A signed grant replaces an unsigned one signed at the same instant, and not the other way round")
    func signedReplacesUnsignedAtATie() throws {
        let catalog = try Self.catalog()
        let payload = Self.grant(signed: "2026-11-20T09:00:00Z")
        var store = FactStore()
        #expect(store.insert(contentsOf: try EventDecoder.decode(line: payload.utf8, signatures: catalog.signatures)))
        #expect(store.insert(contentsOf: try EventDecoder.decode(line: TestSigner.grantJWS(payload).utf8, signatures: catalog.signatures)))
        #expect(!store.insert(contentsOf: try EventDecoder.decode(line: payload.utf8, signatures: catalog.signatures)))
        #expect(store.grants["g1"]?.keyId == Self.keyId)
    }

    @Test("The longer access decides: a lifetime grant over a monthly subscription, which products still lists; a later-ending subscription over a shorter grant")
    func longerAccessDecides() throws {
        let catalog = try Self.catalog()
        let monthly = Fixtures.transaction(
            id: "m1", purchased: "2026-11-20T09:00:00Z", expires: "2026-12-20T09:00:00Z", signed: "2026-11-20T09:00:00Z")
        let lifetime = try Self.evaluate([monthly, Self.grant(signed: "2026-11-20T10:00:00Z")], catalog: catalog, now: "2026-11-22T00:00:00Z")
        let plus = try #require(lifetime.entitlements["plus"])
        #expect(plus.ownership == .granted && plus.state == .purchased && plus.productId == nil && plus.expiresAt == nil)
        #expect(plus.products == [Fixtures.monthly])
        let short = try Self.evaluate(
            [monthly, Self.grant(expires: "2026-12-01T00:00:00Z", signed: "2026-11-20T10:00:00Z")], catalog: catalog, now: "2026-11-22T00:00:00Z")
        #expect(short.entitlements["plus"]?.ownership == .purchased)
        #expect(short.entitlements["plus"]?.productId == Fixtures.monthly)
    }

    @Test("A signed grant counts while grantKeys names its key; an unsigned one only where signatures are optional")
    func catalogDecidesWhatAGrantGives() throws {
        let signed = try EventDecoder.decode(line: TestSigner.grantJWS(Self.grant(signed: "2026-11-20T09:00:00Z")).utf8, signatures: try Self.catalog().signatures)
        let unsigned = try EventDecoder.decode(line: Self.grant(id: "g2", signed: "2026-11-20T09:00:00Z").utf8, signatures: .optional)
        let now = Fixtures.date("2026-11-22T00:00:00Z")
        var withoutKey = try Self.catalog()
        withoutKey.signatures.grantKeys = [:]
        #expect(EntitlementEngine(catalog: try Self.catalog()).evaluate(FactStore(signed), now: now).entitlements["plus"]?.active == true)
        #expect(EntitlementEngine(catalog: withoutKey).evaluate(FactStore(signed), now: now).entitlements["plus"]?.active == false)
        #expect(EntitlementEngine(catalog: try Self.catalog()).evaluate(FactStore(unsigned), now: now).entitlements["plus"]?.active == true)
        #expect(EntitlementEngine(catalog: try Self.catalog(.required)).evaluate(FactStore(unsigned), now: now).entitlements["plus"]?.active == false)
    }
}
