import EntitlementDefaults
import Entitlements
import Foundation
import SignedData
import Testing
import TestSupport

/// Catalog keys `signatures` and `trustedRoots`, decoded and validated like the others.
@Suite("Catalog keys signatures and trustedRoots") struct CatalogSignatureKeysTests {
    /// Writes a catalog (with the Qysmat .storekit beside it) whose keys are `changes` over the
    /// Sandbox one, then loads it.
    static func load(_ changes: [String: Any], in directory: String, extraFiles: [String: Data] = [:]) throws -> Catalog {
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Vectors.path("catalogs/Sandbox.json")))) as! [String: Any]
        object.merge(changes) { $1 }
        try FileManager.default.copyItem(atPath: Vectors.path("catalogs/Qysmat.storekit"), toPath: directory + "/Qysmat.storekit")
        for (name, data) in extraFiles {
            try FileManager.default.createDirectory(
                atPath: (directory + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: directory + "/Catalog.json"))
        return try Catalog.load(path: directory + "/Catalog.json")
    }

    @Test("signatures defaults to required for Production and Sandbox, optional for Xcode and LocalTesting",
          arguments: [("Production", "required"), ("Sandbox", "required"), ("Xcode", "optional"), ("LocalTesting", "optional")])
    func defaults(environment: String, expected: String) throws {
        try withTemporaryDirectory { directory in
            let catalog = try Self.load(["environment": environment], in: directory)
            #expect(catalog.signatures.requirement.rawValue == expected)
        }
    }

    @Test("An explicit value wins over the default") func explicit() throws {
        try withTemporaryDirectory { directory in
            let catalog = try Self.load(["signatures": "optional"], in: directory)
            #expect(catalog.signatures.requirement == .optional)
        }
    }

    @Test("The default catalog (Xcode) keeps accepting unsigned data") func defaultCatalog() throws {
        let catalog = try Catalog.load(path: BuiltTools.defaultCatalog)
        let isXcode = catalog.environment == .xcode
        #expect(isXcode)
        #expect(catalog.signatures.requirement == .optional)
        #expect(catalog.signatures.trustedRoots.isEmpty)
    }

    @Test("trustedRoots: DER and PEM, relative to the catalog file") func trustedRoots() throws {
        try withTemporaryDirectory { directory in
            let der = try Data(contentsOf: URL(fileURLWithPath: Vectors.path("catalogs/xcode-storekit-testing.cer")))
            let pem = try Data(contentsOf: URL(fileURLWithPath: Vectors.path("tampered/test-root.pem")))
            let catalog = try Self.load(
                ["trustedRoots": ["roots/xcode.cer", "roots/test.pem"]], in: directory,
                extraFiles: ["roots/xcode.cer": der, "roots/test.pem": pem])
            let expected = [Array(der), try X509Certificate(fileContents: pem).der]
            #expect(catalog.signatures.trustedRoots.map(\.der) == expected)
            #expect(catalog.signatures.verifier.rootFingerprints.count == 3, "Apple Root CA - G3 and the two")
        }
    }

    @Test("Bad values name the catalog file and the key", arguments: [
        (#"{"signatures": "sometimes"}"#, "signatures: 'sometimes' is not required or optional"),
        (#"{"signatures": true}"#, "signatures: not a string"),
        (#"{"trustedRoots": "root.pem"}"#, "trustedRoots: not an array"),
        (#"{"trustedRoots": [""]}"#, "trustedRoots[0]: is empty"),
        (#"{"trustedRoots": ["missing.pem"]}"#, "trustedRoots[0]: "),
        (#"{"trustedRoots": ["Qysmat.storekit"]}"#, "trustedRoots[0]: "),
    ])
    func badValues(json: String, message: String) throws {
        let changes = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        try withTemporaryDirectory { directory in
            do {
                _ = try Self.load(changes, in: directory)
                Issue.record("accepted \(changes)")
            } catch let error as CatalogError {
                #expect(error.file == directory + "/Catalog.json")
                #expect(error.description.hasPrefix(directory + "/Catalog.json: " + message), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }
}
