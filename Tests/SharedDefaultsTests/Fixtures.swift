import Entitlements
import Foundation
import PropertyList
import SharedDefaults

/// Shared values and file helpers for this target's suites.
enum Fixture {
    static let suite = "group.com.example.entitlements"

    static func snapshot(generation: Int64, schemaVersion: Int = EntitlementSnapshot.currentSchemaVersion) -> EntitlementSnapshot {
        EntitlementSnapshot(
            schemaVersion: schemaVersion, generation: generation,
            issuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(generation)),
            nextTransition: Date(timeIntervalSince1970: 1_800_000_000),
            entitlements: [
                "plus": EntitlementStatus(
                    active: true, state: .subscribed, periodType: .trial,
                    expiresAt: Date(timeIntervalSince1970: 1_800_000_000), productId: "com.example.plus.monthly",
                    willRenew: true)
            ])
    }

    /// The suite file's bytes for a dictionary, as a writer would produce them.
    static func bytes(_ dictionary: PropertyListDictionary) throws -> [UInt8] {
        try PropertyListCodec.encode(.dictionary(dictionary))
    }

    static func bytes(of snapshot: EntitlementSnapshot) throws -> [UInt8] {
        try bytes([EntitlementSnapshot.defaultsKey: snapshot.propertyList])
    }

    /// Replaces whatever is at `path` with a new regular file (mode `mode`) holding `bytes`.
    static func writeRaw(_ bytes: [UInt8], to path: String, mode: Int = 0o640) throws {
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    static func contents(of path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func permissions(of path: String) throws -> Int {
        try requireNonNil(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}

struct MissingValue: Error {}

func requireNonNil<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}
