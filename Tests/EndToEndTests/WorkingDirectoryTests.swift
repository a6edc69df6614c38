import Entitlements
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

/// The tools do not depend on the directory they are started in: run from an unrelated working
/// directory with no flags, they find the catalog and the container through the environment,
/// the user's places (XDG) or, run from the package's `.build`, the package's `Shared/`.
@Suite("Defaults independent of the working directory", .timeLimit(.minutes(2)))
struct WorkingDirectoryTests {
    /// An environment whose user places are under `home` (empty unless a test fills them).
    static func environment(home: String, _ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"].merging(extra) { $1 }
    }

    /// Whether the test named `test` can run here: a system catalog (an installation on this
    /// machine) would win over the package's. Prints that the test was skipped when it cannot.
    static func noSystemCatalog(for test: String = #function) -> Bool {
        guard FileManager.default.fileExists(atPath: "/etc/entitlements/Catalog.json") else { return true }
        print("WorkingDirectoryTests.\(test) skipped: /etc/entitlements/Catalog.json exists on this machine and would win over the package's catalog")
        return false
    }

    @Test("Run elsewhere with only ENTITLEMENTS_CONTAINER: the package's catalog is found and status sees the daemon")
    func packageCatalogFromElsewhere() async throws {
        guard Self.noSystemCatalog() else { return }
        try await withTemporaryDirectory { root in
            let elsewhere = root + "/elsewhere"
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let environment = Self.environment(home: root + "/home", ["ENTITLEMENTS_CONTAINER": root + "/container"])
            let daemon = try BuiltTools.start("entitlementd", [], environment: environment, workingDirectory: elsewhere)
            let reader = SnapshotReader(suiteName: "group.com.irenews.geko", container: root + "/container")
            let published = await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning }
            let status = try await BuiltTools.run("entitlementctl", ["status"], environment: environment, workingDirectory: elsewhere)
            let render = try await BuiltTools.run(
                "widget-renderer", ["--family", "systemSmall", "--format", "json"], environment: environment, workingDirectory: elsewhere)
            let daemonStatus = await daemon.stop()
            #expect(published, "entitlementd: \(daemon.standardError)")
            #expect(daemonStatus == 0)
            #expect(status.status == 0, "\(status.standardError)")
            #expect(status.standardOutput.hasPrefix("generation 1"), "\(status.standardOutput)")
            #expect(render.status == 0, "\(render.standardError)")
            #expect(render.standardOutput.contains("\"family\":\"systemSmall\""))
        }
    }

    @Test("With a catalog in the user's place, no flags and no variables: daemon and entitlementctl agree on the user's container")
    func userPlace() async throws {
        try await withTemporaryDirectory { root in
            let home = root + "/home"
            let config = home + "/config/entitlements"
            try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
            let shared = BuiltTools.packageRoot + "/Shared/"
            for file in ["Catalog.json", "Geko.storekit"] {
                try FileManager.default.copyItem(atPath: shared + file, toPath: config + "/" + file)
            }
            let environment = Self.environment(home: home)
            let daemon = try BuiltTools.start("entitlementd", [], environment: environment, workingDirectory: root)
            let container = home + "/state/entitlements/container"
            let reader = SnapshotReader(suiteName: "group.com.irenews.geko", container: container)
            let published = await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning }
            let check = try await BuiltTools.run("entitlementctl", ["check", "habits", "--count", "1"], environment: environment, workingDirectory: root)
            let daemonStatus = await daemon.stop()
            #expect(published, "entitlementd: \(daemon.standardError)")
            #expect(daemonStatus == 0, "entitlementd: \(daemon.standardError)")
            #expect(check.status == 0, "\(check.standardError)")
            #expect(check.standardError.isEmpty, "no snapshot where the daemon published? \(check.standardError)")
        }
    }

    @Test("Every 'not found' names the path and where it came from")
    func notFoundNamesTheSource() async throws {
        try await withTemporaryDirectory { root in
            let environment = Self.environment(home: root + "/home")
            let flag = try await BuiltTools.run("widget-renderer", ["--catalog", root + "/none.json"], environment: environment, workingDirectory: root)
            #expect(flag.status == 64)
            #expect(flag.standardError == "widget-renderer: error: \(root)/none.json: catalog not found (from --catalog)\nSee 'widget-renderer --help'.\n")
            let variable = try await BuiltTools.run(
                "entitlementctl", ["status"], environment: environment.merging(["ENTITLEMENTS_CONTAINER": root + "/c"]) { $1 },
                workingDirectory: root)
            #expect(variable.status == 69)
            let daemon = try await BuiltTools.run(
                "entitlementd", ["--container", root + "/d"], environment: environment.merging(["ENTITLEMENTS_CATALOG": root + "/none.json"]) { $1 },
                workingDirectory: root)
            #expect(daemon.status == 64)
            #expect(daemon.standardError == "entitlementd: error: \(root)/none.json: catalog not found (from ENTITLEMENTS_CATALOG)\nSee 'entitlementd --help'.\n")
            // A relative flag is relative to the working directory, which the tools were started in.
            let shared = BuiltTools.packageRoot + "/Shared/"
            for file in ["Catalog.json", "Geko.storekit"] { try FileManager.default.copyItem(atPath: shared + file, toPath: root + "/" + file) }
            let relative = try await BuiltTools.run(
                "widget-renderer", ["--catalog", "Catalog.json", "--container", "c", "--family", "systemSmall"], environment: environment,
                workingDirectory: root)
            #expect(relative.status == 0, "\(relative.standardError)")
            #expect(relative.standardError.hasPrefix("widget-renderer: c/Library/Preferences/"), "\(relative.standardError)")
            #expect(variable.standardError.hasPrefix(
                "entitlementctl: \(root)/c/Library/Preferences/group.com.irenews.geko.plist: no snapshot published yet (container from ENTITLEMENTS_CONTAINER;"),
                "\(variable.standardError)")
        }
    }
}
