import Broker
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// An inbox file the daemon cannot open (another owner's, mode 0640, with the daemon not root):
/// the purchases behind it are applied at once, and after a bounded number of tries the file is
/// moved to `rejected/` with its reason.
@Suite("Unreadable inbox file", .timeLimit(.minutes(2)))
struct UnreadableInboxFileTests {
    @Test("An inbox file the daemon cannot open holds back no purchase and is set aside in rejected/ after a bounded number of tries",
          .enabled(if: TemporaryUser.canBeMade, "needs root, useradd, userdel and setpriv to run the daemon as another user"))
    func unreadableFileSetAside() async throws {
        // Under /var/tmp, not $TMPDIR: the user must reach the container from /, and a test that
        // changes the temporary directory's mode (as root) must not make this one fail.
        let root = try FileSystem.makeTemporaryDirectory(in: "/var/tmp", prefix: "unreadable-inbox")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fixture = Fixture(root: root)
        try await withTemporaryUser { user in
            // The daemon runs as the user, who owns the container (and reaches it and the catalog).
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fixture.root)
            try FileManager.default.createDirectory(atPath: fixture.container, withIntermediateDirectories: false)
            try user.own(fixture.container)
            let start = user.command(BuiltTools.path("entitlementd"), fixture.common)
            let daemon = try ChildProcess(executable: start.executable, arguments: start.arguments, environment: BuiltTools.environment())
            defer { daemon.send(SIGKILL) }
            // The shared file is the user's: read trusting its owner.
            let reader = SnapshotReader(
                suiteName: fixture.group, container: fixture.container, options: .init(allowedOwners: [user.userID]))
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { reader.refresh().snapshot != nil || !daemon.isRunning }, "\(daemon.standardError)")
            try #require(daemon.isRunning, "\(daemon.standardError)")

            // Root's file, mode 0640, queued first: the daemon's user cannot open it.
            let blocked = "00000000000000000001-1-1.events"
            let staged = fixture.layout.inboxDirectory + "/.staged"
            try Data((DaemonFaultTests.lifetime("9601") + "\n").utf8).write(to: URL(fileURLWithPath: staged))
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: staged)
            try FileManager.default.moveItem(atPath: staged, toPath: fixture.layout.inboxDirectory + "/" + blocked)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { daemon.standardError.contains("EACCES") }, "\(daemon.standardError)")

            // A purchase queued behind it is applied without waiting for it.
            let ingestCommand = user.command(
                BuiltTools.path("entitlementctl"), ["ingest", "--wait", "--timeout", "20", "-"] + fixture.common)
            let ingest = try await BuiltTools.run(
                executable: ingestCommand.executable, ingestCommand.arguments, input: DaemonFaultTests.lifetime("9602") + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError) \(daemon.standardError)")
            #expect(reader.refresh().snapshot?.status(of: "plus").state == .purchased)

            // After a bounded number of tries the unreadable file leaves the inbox for rejected/, with its reason.
            let rejected = fixture.layout.rejectedDirectory
            let setAside = await ChildProcess.wait(timeout: .seconds(60)) {
                FileManager.default.fileExists(atPath: rejected + "/" + blocked)
                    && !FileManager.default.fileExists(atPath: fixture.layout.inboxDirectory + "/" + blocked)
            }
            #expect(setAside, "\(daemon.standardError)")
            let reason = RefusalRecord.reason(for: blocked, in: rejected) ?? ""
            #expect(reason.contains("EACCES") && reason.contains("tries"), "reason: \(reason)")
            // It was tried a few times, each a log line, then no more.
            let tries = daemon.standardError.split(separator: "\n").filter { $0.contains("drain failed") && $0.contains(blocked) }.count
            #expect(tries >= 2 && tries < 10, "\(daemon.standardError)")
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { daemon.standardError.contains("recovered after ") }, "\(daemon.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }
}
