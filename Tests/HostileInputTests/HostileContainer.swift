import Broker
import EntitlementDefaults
import Entitlements
import Foundation
import PropertyList
import SharedDefaults
import TestSupport

/// A temporary container whose shared file a test replaces with hostile content, plus the tool
/// arguments that point at it.
struct HostileContainer {
    let root: String
    let group = "group.test.hostile"
    var container: String { root + "/container" }
    var layout: ContainerLayout { ContainerLayout(container: container, group: group) }
    var sharedFile: String { layout.sharedFilePath }
    var preferences: String { layout.preferencesDirectory }
    var common: [String] { ["--container", container, "--group", group, "--catalog", BuiltTools.defaultCatalog] }

    /// Runs `body` with a fresh container (preferences directory made, mode 0750) removed afterwards.
    static func with<T>(_ name: String = #function, _ body: (HostileContainer) async throws -> T) async throws -> T {
        try await withTemporaryDirectory(name) { root in
            let fixture = HostileContainer(root: root)
            try FileManager.default.createDirectory(
                atPath: fixture.preferences, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            return try await body(fixture)
        }
    }

    /// A good, unlocked snapshot of generation `generation`, written atomically as the shared file.
    func publishGood(generation: Int64) throws {
        let snapshot = Self.unlockedSnapshot(generation: generation)
        let bytes = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]))
        try install(bytes)
    }

    /// Replaces the shared file with `bytes` by rename (as a writer would), mode 0640.
    func install(_ bytes: [UInt8]) throws {
        let temporary = preferences + "/.incoming-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        chmod(temporary, 0o640)
        guard rename(temporary, sharedFile) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Places a copy of the corpus file `name` (from `shared-files`) as the shared file.
    func installCorpusFile(_ name: String) throws {
        try install([UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path("shared-files", name)))))
    }

    static func unlockedSnapshot(generation: Int64) -> EntitlementSnapshot {
        let now = Date()
        return EntitlementSnapshot(
            generation: generation, issuedAt: now, nextTransition: nil,
            entitlements: [
                "plus": EntitlementStatus(
                    active: true, state: .purchased, periodType: .normal, expiresAt: nil,
                    productId: "com.irenews.geko.plus.lifetime", willRenew: false, ownership: .purchased)
            ])
    }
}
