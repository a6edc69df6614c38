import Broker
import EntitlementModel
import Foundation
import ServiceRuntime
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

    /// Starts the daemon and waits until its first snapshot is published.
    func startDaemon(_ extra: [String] = []) async throws -> ChildProcess {
        let daemon = try BuiltTools.start("entitlementd", common + extra)
        let reader = SnapshotReader(suiteName: group, container: container)
        let ready = await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning }
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
        func ms(_ d: Date) -> JSONValue { .double((d.timeIntervalSince1970 * 1000).rounded()) }
        var object: [String: JSONValue] = [
            "transactionId": .string(id), "originalTransactionId": .string(id), "productId": .string(product),
            "purchaseDate": ms(purchased), "signedDate": ms(signed ?? purchased),
            "type": expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "environment": .string(environment), "bundleId": .string(bundleId),
        ]
        if let expires { object["expiresDate"] = ms(expires) }
        if let revoked { object["revocationDate"] = ms(revoked) }
        return JSONValue.object(object).serialized
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
