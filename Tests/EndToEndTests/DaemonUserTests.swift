import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// The documented install: the daemon runs as its own user, and an app user added to the
/// daemon's group (`usermod -aG entitlements USER`) reads what it publishes. Two real accounts
/// are made for the test (and removed after it); every tool runs as one of them.
@Suite("The daemon's user", .timeLimit(.minutes(3)))
struct DaemonUserTests {
    static let setpriv = "/usr/bin/setpriv"
    static let canSwitchUsers = geteuid() == 0
        && ["/usr/sbin/useradd", "/usr/sbin/userdel", setpriv].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    static let skipReason: Comment = "needs root, useradd, userdel and setpriv to run tools as two new users"

    /// A daemon account with its own group, and an app account that is also in that group.
    struct Accounts {
        let daemon: String
        let app: String

        /// `tool`'s executable and arguments to run it as `user` (with the user's groups).
        func command(_ tool: String, as user: String, _ arguments: [String]) -> (String, [String]) {
            (DaemonUserTests.setpriv, ["--reuid=\(user)", "--regid=\(user)", "--init-groups", "--", BuiltTools.path(tool)] + arguments)
        }
    }

    /// Makes the two accounts, runs `body`, and removes both accounts (and the daemon's group).
    static func withAccounts(_ body: (Accounts) async throws -> Void) async throws {
        let tag = String(UUID().uuidString.lowercased().prefix(8))
        let accounts = Accounts(daemon: "entd\(tag)", app: "entapp\(tag)")
        let madeDaemon = try await BuiltTools.run(
            executable: "/usr/sbin/useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", accounts.daemon])
        try #require(madeDaemon.status == 0, "useradd \(accounts.daemon): \(madeDaemon.standardError)")
        defer { Self.remove(accounts.daemon) }
        let madeApp = try await BuiltTools.run(
            executable: "/usr/sbin/useradd",
            ["--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "--groups", accounts.daemon, accounts.app])
        try #require(madeApp.status == 0, "useradd \(accounts.app): \(madeApp.standardError)")
        defer { Self.remove(accounts.app) }
        try await body(accounts)
    }

    /// Removes `user` and its own group, synchronously (from a `defer`).
    static func remove(_ user: String) {
        for (tool, arguments) in [("/usr/sbin/userdel", [user]), ("/usr/sbin/groupdel", [user])] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            process.waitUntilExit()
        }
    }

    /// Whether every directory on the way to `path`, and `path` itself, lets other users search it.
    static func othersCanReach(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path)
        while true {
            var status = stat()
            guard stat(url.path, &status) == 0, status.st_mode & S_IXOTH != 0 else { return false }
            if url.path == "/" { return true }
            url.deleteLastPathComponent()
        }
    }

    /// Runs `body` with a fixture in a new directory both users can reach (the system's temporary
    /// directory may be root's alone), removed afterwards.
    static func withReachableFixture(_ body: (Fixture) async throws -> Void) async throws {
        let candidates = [NSTemporaryDirectory(), "/var/tmp", "/dev/shm"]
        let base = try #require(candidates.first(where: othersCanReach), "no temporary directory other users can reach: \(candidates)")
        let root = URL(fileURLWithPath: base).appendingPathComponent("e2e-daemonUser-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(chmod(root, 0o755) == 0)
        try await body(Fixture(root: root))
    }

    /// A container the daemon's user owns (mode 0750, its group).
    static func prepareContainer(_ fixture: Fixture, for accounts: Accounts) throws {
        try FileManager.default.createDirectory(atPath: fixture.container, withIntermediateDirectories: false)
        let daemon = try #require(getpwnam(accounts.daemon)?.pointee)
        #expect(chown(fixture.container, daemon.pw_uid, daemon.pw_gid) == 0)
        #expect(chmod(fixture.container, 0o750) == 0)
    }

    @Test("An app user in the daemon's group reads what the daemon, running as its own user, publishes",
          .enabled(if: canSwitchUsers, skipReason))
    func appUserReadsTheDaemonsFile() async throws {
        try await Self.withReachableFixture { fixture in
            try await Self.withAccounts { accounts in
                try Self.prepareContainer(fixture, for: accounts)
                let (daemonTool, daemonArguments) = accounts.command("entitlementd", as: accounts.daemon, fixture.common)
                let daemon = try ChildProcess(executable: daemonTool, arguments: daemonArguments, environment: BuiltTools.environment())
                defer { daemon.send(SIGKILL) }
                // Published: the file exists (this test's reader, root, is not the one under test).
                try #require(
                    await ChildProcess.wait(timeout: .seconds(20)) {
                        FileManager.default.fileExists(atPath: fixture.layout.sharedFilePath) || !daemon.isRunning
                    } && daemon.isRunning,
                    "entitlementd as \(accounts.daemon) did not publish: \(daemon.standardError)")

                // The app's widget follows from before the purchase.
                let lines = TimestampedLines()
                let (followTool, followArguments) = accounts.command(
                    "widget-renderer", as: accounts.app, fixture.common + ["--follow", "--format", "json", "--family", "systemSmall"])
                let follower = try ChildProcess(executable: followTool, arguments: followArguments, environment: BuiltTools.environment()) {
                    stream, line in if stream == .standardOutput { lines.append(line) }
                }
                defer { follower.send(SIGKILL) }
                #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.all.contains { $0.line.hasPrefix("{") } || !follower.isRunning },
                        "no first frame: \(follower.standardError)")

                // The daemon takes events from its own user, as the README says.
                let lifetime = Fixture.transaction(id: "9401", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
                let (ingestTool, ingestArguments) = accounts.command("entitlementctl", as: accounts.daemon, ["ingest", "--wait", "-"] + fixture.common)
                let ingest = try await BuiltTools.run(executable: ingestTool, ingestArguments, input: lifetime + "\n")
                #expect(ingest.status == 0, "ingest as \(accounts.daemon): \(ingest.standardError)")

                let unlocked = await ChildProcess.wait(timeout: .seconds(20)) {
                    lines.all.contains { DaemonEndToEndTests.firstEntry($0.line)?.locked == false }
                }
                #expect(unlocked, "the follower as \(accounts.app) never unlocked: \(lines.all.map(\.line)) \(follower.standardError)")

                let (checkTool, checkArguments) = accounts.command("entitlementctl", as: accounts.app, ["check", "widgets"] + fixture.common)
                let check = try await BuiltTools.run(executable: checkTool, checkArguments)
                #expect(check.status == 0, "check as \(accounts.app): \(check.standardOutput) \(check.standardError)")

                let (statusTool, statusArguments) = accounts.command(
                    "entitlementctl", as: accounts.app, ["status", "--format", "json"] + fixture.common)
                let status = try await BuiltTools.run(executable: statusTool, statusArguments)
                #expect(status.status == 0, "status as \(accounts.app): \(status.standardError)")
                let object = try? JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
                let plus = (object?["entitlements"] as? [String: Any])?["plus"] as? [String: Any]
                #expect(plus?["active"] as? Bool == true, "status as \(accounts.app): \(status.standardOutput)")

                let (renderTool, renderArguments) = accounts.command(
                    "widget-renderer", as: accounts.app, ["--format", "json", "--family", "systemSmall"] + fixture.common)
                let rendered = try await BuiltTools.run(executable: renderTool, renderArguments)
                #expect(rendered.status == 0, "widget-renderer as \(accounts.app): \(rendered.standardError)")
                #expect(DaemonEndToEndTests.firstEntry(rendered.standardOutput)?.locked == false, "\(rendered.standardOutput)")

                #expect(await follower.stop() == 0, "\(follower.standardError)")
                #expect(await daemon.stop() == 0, "\(daemon.standardError)")
            }
        }
    }
}
