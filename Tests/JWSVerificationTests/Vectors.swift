import EntitlementDefaults
import Entitlements
import Foundation
import TestSupport

/// The committed vectors (Vectors/README.md says where each comes from).
enum Vectors {
    static let root = TestSigner.vectors

    static func path(_ relative: String) -> String { root + "/" + relative }

    static func lines(_ relative: String) throws -> [String] {
        try String(contentsOfFile: path(relative), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func catalog(_ name: String) throws -> Catalog { try Catalog.load(path: path("catalogs/" + name)) }

    /// Each tampered fixture and the words its refusal must contain (make-tampered.py says how
    /// each was made). All are refused under the Sandbox catalog that trusts the test root.
    static let tampered: [(file: String, reason: String)] = [
        ("payload-byte-changed", "bad signature: the JWS signature does not verify"),
        ("other-key-signature", "bad signature: the JWS signature does not verify"),
        ("self-made-ca-chain", "untrusted root"),
        ("leaf-without-apple-oid", "missing Apple OID: x5c[0] lacks extension 1.2.840.113635.100.6.11.1"),
        ("intermediate-swapped-for-leaf", "missing Apple OID: x5c[1] lacks extension 1.2.840.113635.100.6.2.1"),
        ("chain-of-two", "x5c holds 2 certificates"),
        ("root-one-byte-different", "untrusted root"),
        ("alg-changed", "algorithm: JWS alg 'ES384' is not ES256"),
        ("alg-none", "algorithm: JWS alg 'none' is not ES256"),
        ("leaf-expired-at-signed-date", "certificate expired at signedDate: x5c[0]"),
    ]

    /// Those whose JWS is not intact: refused even where signatures are optional.
    static let notIntact: Set<String> = ["payload-byte-changed", "other-key-signature", "alg-changed", "alg-none"]
}
