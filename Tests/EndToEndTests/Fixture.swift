import Broker
import Entitlements
import StoreKitFormats
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import TestSupport

/// A temporary container plus helpers to drive the real executables against it.
struct Fixture {
    let root: String
    var container: String { root + "/container" }
    let group = "group.test.geko"
    var layout: ContainerLayout { ContainerLayout(container: container, group: group) }
    var common: [String] { ["--container", container, "--group", group, "--catalog", BuiltTools.defaultCatalog] }

    /// Runs `body` with a fresh fixture whose directory is removed afterwards.
    static func with<T>(_ name: String = #function, _ body: (Fixture) async throws -> T) async throws -> T {
        let root = NSTemporaryDirectory() + "e2e-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        return try await body(Fixture(root: root))
    }

    func run(_ tool: String, _ arguments: [String], input: String? = nil) async throws -> BuiltTools.Result {
        try await BuiltTools.run(tool, arguments, input: input)
    }

    /// Starts the daemon and waits until it has started and a snapshot is published.
    func startDaemon(_ extra: [String] = []) async throws -> ChildProcess {
        let daemon = try BuiltTools.start("entitlementd", common + extra)
        let reader = SnapshotReader(suiteName: group, container: container)
        let ready = await ChildProcess.wait(timeout: .seconds(20)) {
            (daemon.daemonHasStarted && reader.refresh().snapshot != nil) || !daemon.isRunning
        }
        guard ready, daemon.isRunning else {
            await daemon.stop()
            throw FixtureError("entitlementd did not publish: \(daemon.standardError)")
        }
        return daemon
    }

    func snapshot() -> EntitlementSnapshot? {
        SnapshotReader(suiteName: group, container: container).refresh().snapshot
    }

    /// A StoreKit 2 transaction line for the sample catalog.
    static func transaction(
        id: String, product: String = "com.irenews.geko.plus.monthly", purchased: Date, expires: Date?,
        signed: Date? = nil, revoked: Date? = nil, environment: String = "Xcode", bundleId: String = "com.irenews.geko"
    ) -> String {
        StoreTransaction(
            transactionId: id, originalTransactionId: id, bundleId: bundleId, productId: product, purchaseDate: purchased,
            expiresDate: expires, type: expires == nil ? .nonConsumable : .autoRenewable, signedDate: signed ?? purchased,
            revocationDate: revoked, environment: StoreEnvironment(rawValue: environment)
        ).jsonRepresentation.serialized
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
