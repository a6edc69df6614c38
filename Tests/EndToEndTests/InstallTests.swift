import Entitlements
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// `make install` into a temporary DESTDIR, then the installed daemon and CLI run from there, with
/// the installed catalog, against a temporary container: what a packager and an administrator get.
@Suite("Install", .timeLimit(.minutes(3)))
struct InstallTests {
    static let prefix = "/usr/local"

    /// How a process ended and what it printed.
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `make install` with the tools `swift test` already built (a nested `swift build` would
    /// wait for the lock `swift test` holds on `.build`), so only the install step is under test.
    static func install(into stage: String) async throws -> Outcome {
        let make = try ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["make", "-C", BuiltTools.packageRoot, "install", "DESTDIR=\(stage)", "PREFIX=\(prefix)", "BINARIES=\(BuiltTools.directory)"],
            environment: BuiltTools.environment())
        guard let status = await make.waitForExit(timeout: .seconds(60)) else {
            await make.stop(grace: .seconds(1))
            throw FixtureError("make install did not finish: \(make.standardOutput)\(make.standardError)")
        }
        return Outcome(status: status, standardOutput: make.standardOutput, standardError: make.standardError)
    }

    /// The words of the unit's `ExecStart=` line.
    static func execStart(ofUnit unit: String) throws -> [String] {
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
    }

    @Test("make install stages tools, catalog, unit and user; the installed daemon ingests and publishes")
    func installAndRun() async throws {
        try await withTemporaryDirectory { root in
            let stage = root + "/stage"
            let made = try await Self.install(into: stage)
            #expect(made.status == 0, "make install: \(made.standardOutput)\(made.standardError)")

            let bin = stage + Self.prefix + "/bin"
            for tool in ["entitlementd", "entitlementctl", "widget-renderer"] {
                #expect(FileManager.default.isExecutableFile(atPath: "\(bin)/\(tool)"), "\(tool) not installed")
            }
            let unitPath = stage + Self.prefix + "/lib/systemd/system/entitlementd.service"
            let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
            let sysusers = try String(contentsOfFile: stage + Self.prefix + "/lib/sysusers.d/entitlements.conf", encoding: .utf8)
            #expect(sysusers.split(separator: "\n").contains { $0.hasPrefix("u entitlements ") })
            #expect(unit.contains("\nUser=entitlements\n"))

            // The unit names the installed daemon and the installed catalog.
            let command = try Self.execStart(ofUnit: unit)
            #expect(command.first == Self.prefix + "/bin/entitlementd")
            let catalogIndex = try #require(command.firstIndex(of: "--catalog"))
            let catalog = stage + command[catalogIndex + 1]
            #expect(FileManager.default.fileExists(atPath: catalog), "unit's catalog \(command[catalogIndex + 1]) not installed")
            #expect(FileManager.default.fileExists(atPath: (catalog as NSString).deletingLastPathComponent + "/Geko.storekit"))

            // The companion link's drop-in is staged where it does nothing: the unit keeps its
            // network sandbox until an administrator copies the drop-in into place.
            let dropIn = try String(contentsOfFile: stage + Self.prefix + "/share/entitlement-broker/entitlementd-companion.conf", encoding: .utf8)
            let dropInCommand = dropIn.split(separator: "\n").last { $0.hasPrefix("ExecStart=/") }
            #expect(dropInCommand?.hasPrefix("ExecStart=" + Self.prefix + "/bin/entitlementd ") == true, "\(dropIn)")
            #expect(!FileManager.default.fileExists(atPath: unitPath + ".d"), "a drop-in is active by default")

            // The installed tools, run from the stage against a temporary container.
            let common = ["--container", root + "/container", "--group", "group.test.install", "--catalog", catalog]
            let daemon = try ChildProcess(executable: "\(bin)/entitlementd", arguments: common, environment: BuiltTools.environment())
            let reader = SnapshotReader(suiteName: "group.test.install", container: root + "/container")
            let started = await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning }
            #expect(started && daemon.isRunning, "installed entitlementd did not publish: \(daemon.standardError)")

            let story = BuiltTools.packageRoot + "/Examples/Events/lifetime.jsonl"
            let ingest = try await run("\(bin)/entitlementctl", ["ingest", "--wait", story] + common)
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            let status = try await run("\(bin)/entitlementctl", ["status", "--format", "json"] + common)
            #expect(status.status == 0, "status: \(status.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
            let plus = try #require((object["entitlements"] as? [String: Any])?["plus"] as? [String: Any], "\(status.standardOutput)")
            #expect(plus["state"] as? String == "purchased")
            #expect(plus["active"] as? Bool == true)
            #expect(await daemon.stop() == 0, "\(daemon.standardError)")
        }
    }

    @Test("The unit keeps its systemd-analyze exposure at 0.5 or below")
    func unitExposure() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("InstallTests.unitExposure: skipped: /usr/bin/systemd-analyze is not installed (apt-get install systemd)")
            return
        }
        let unit = BuiltTools.packageRoot + "/Shared/entitlementd.service"
        let analyze = try ChildProcess(
            executable: "/usr/bin/systemd-analyze", arguments: ["security", "--offline=yes", "--no-pager", unit],
            environment: BuiltTools.environment())
        #expect(await analyze.waitForExit(timeout: .seconds(60)) != nil)
        let line = try #require(
            analyze.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(analyze.standardOutput)\(analyze.standardError)")
        let figure = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, "\(line)")
        #expect(figure <= 0.5, "\(line)")
    }

    @Test("With the companion drop-in the unit allows the inet families and the peer alone, and still rates OK or better")
    func companionDropInExposure() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("InstallTests.companionDropInExposure: skipped: /usr/bin/systemd-analyze is not installed (apt-get install systemd)")
            return
        }
        let dropIn = try String(contentsOfFile: BuiltTools.packageRoot + "/Shared/entitlementd-companion.conf", encoding: .utf8)
        let settings = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map(String.init)
        #expect(settings.contains("PrivateNetwork=no"))
        #expect(settings.filter { $0.hasPrefix("RestrictAddressFamilies=") } == ["RestrictAddressFamilies=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"])
        #expect(settings.filter { $0.hasPrefix("IPAddress") } == ["IPAddressDeny=any", "IPAddressAllow=192.0.2.1"])
        try await withTemporaryDirectory { root in
            // The unit and the drop-in as an administrator installs them, under a root of their own.
            let system = root + "/etc/systemd/system"
            try FileManager.default.createDirectory(atPath: system + "/entitlementd.service.d", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: BuiltTools.packageRoot + "/Shared/entitlementd.service", toPath: system + "/entitlementd.service")
            try dropIn.write(toFile: system + "/entitlementd.service.d/companion.conf", atomically: false, encoding: .utf8)
            let analyze = try ChildProcess(
                executable: "/usr/bin/systemd-analyze",
                arguments: ["security", "--offline=yes", "--no-pager", "--root=\(root)", "entitlementd.service"],
                environment: BuiltTools.environment())
            #expect(await analyze.waitForExit(timeout: .seconds(60)) != nil)
            let lines = analyze.standardOutput.split(separator: "\n")
            // The drop-in is read: the network it opens is counted, the peer's address included.
            #expect(lines.contains { $0.contains("PrivateNetwork=") && $0.contains("host's network") }, "\(analyze.standardOutput)")
            #expect(lines.contains { $0.contains("IPAddressDeny=") && $0.contains("non-localhost entries") }, "\(analyze.standardOutput)")
            let line = try #require(lines.first { $0.contains("Overall exposure level") }, "\(analyze.standardOutput)\(analyze.standardError)")
            let words = line.split(separator: ":").last?.split(separator: " ") ?? []
            let figure = try #require(words.first.flatMap { Double($0) }, "\(line)")
            // systemd's levels: below 1.0 SAFE, below 5.0 OK.
            #expect(figure < 5.0, "\(line)")
            #expect(words.dropFirst().first.map { ["OK", "SAFE", "PERFECT"].contains(String($0)) } == true, "\(line)")
        }
    }

    private func run(_ executable: String, _ arguments: [String]) async throws -> Outcome {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: BuiltTools.environment())
        guard let status = await child.waitForExit(timeout: .seconds(30)) else {
            await child.stop(grace: .seconds(1))
            throw FixtureError("\(executable) did not finish: \(child.standardError)")
        }
        return Outcome(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }
}
