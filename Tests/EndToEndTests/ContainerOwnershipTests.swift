import Broker
import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// The daemon owns its container: every directory of it is created mode 0750 or verified to be
/// a directory of the daemon's user that nobody else may write, before anything is written.
@Suite("Container ownership", .timeLimit(.minutes(2)))
struct ContainerOwnershipTests {
    static let isRoot = geteuid() == 0
    /// A uid that is not ours (`nobody` on most systems; no account is needed to own a file).
    static let otherUser: uid_t = 65534

    /// The container's directories, outermost first, as the daemon lays them out.
    static func directories(_ fixture: Fixture) -> [String] {
        let layout = fixture.layout
        return [layout.container, layout.container + "/Library", layout.preferencesDirectory, layout.brokerDirectory,
                layout.inboxDirectory, layout.rejectedDirectory]
    }

    /// Creates every directory of the container (mode 0750), then lets `spoil` change one.
    static func makeContainer(_ fixture: Fixture) throws {
        for directory in directories(fixture) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(chmod(directory, 0o750) == 0)
        }
    }

    /// Starts the daemon and expects it to refuse: exit 65, one line on stderr naming `directory`.
    static func expectRefusal(_ fixture: Fixture, naming directory: String, because phrase: String) async throws {
        let daemon = try BuiltTools.start("entitlementd", fixture.common)
        let status = await daemon.waitForExit(timeout: .seconds(30))
        if status == nil { await daemon.stop() }
        #expect(status == 65, "stderr: \(daemon.standardError)")
        let lines = daemon.standardError.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(daemon.standardError)")
        #expect(lines.first?.contains(directory + ":") == true, "stderr: \(daemon.standardError)")
        #expect(daemon.standardError.contains(phrase), "stderr: \(daemon.standardError)")
        // Nothing was published or locked in it.
        #expect(!FileManager.default.fileExists(atPath: fixture.layout.sharedFilePath))
        #expect(!FileManager.default.fileExists(atPath: fixture.layout.daemonLockPath))
    }

    @Test("Each directory of the container owned by another user stops the daemon with one line naming it",
          .enabled(if: isRoot, "needs root to chown a directory to another uid"),
          arguments: 0..<6)
    func foreignOwnedDirectory(level: Int) async throws {
        try await Fixture.with("foreignOwned\(level)") { fixture in
            try Self.makeContainer(fixture)
            let directory = Self.directories(fixture)[level]
            #expect(chown(directory, Self.otherUser, gid_t(Self.otherUser)) == 0)
            try await Self.expectRefusal(fixture, naming: directory, because: "owned by uid \(Self.otherUser)")
        }
    }

    @Test("A container directory its group or others may write stops the daemon with one line naming it",
          arguments: [(2, 0o770), (1, 0o757), (4, 0o775)])
    func writableDirectory(level: Int, mode: Int) async throws {
        try await Fixture.with("writable\(level)") { fixture in
            try Self.makeContainer(fixture)
            let directory = Self.directories(fixture)[level]
            #expect(chmod(directory, mode_t(mode)) == 0)
            try await Self.expectRefusal(fixture, naming: directory, because: "lets its group or others write")
        }
    }

    @Test("A symbolic link in place of Library/Preferences stops the daemon with one line naming it")
    func symlinkedPreferences() async throws {
        try await Fixture.with { fixture in
            try Self.makeContainer(fixture)
            let directory = fixture.layout.preferencesDirectory
            try FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: fixture.root + "/elsewhere", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: fixture.root + "/elsewhere")
            try await Self.expectRefusal(fixture, naming: directory, because: "symbolic link")
        }
    }

    @Test("The daemon creates every directory of a missing container mode 0750, and accepts its own")
    func createsItsDirectories() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            for directory in Self.directories(fixture) {
                let attributes = try FileManager.default.attributesOfItem(atPath: directory)
                #expect((attributes[.posixPermissions] as? Int) == 0o750, "\(directory)")
                #expect((attributes[.ownerAccountID] as? Int) == Int(geteuid()), "\(directory)")
            }
            #expect(await daemon.stop() == 0)
            // A second start verifies what the first created, and publishes again.
            let first = fixture.snapshot()?.generation ?? 0
            let again = try BuiltTools.start("entitlementd", fixture.common)
            defer { again.send(SIGKILL) }
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { (fixture.snapshot()?.generation ?? 0) > first || !again.isRunning },
                    "\(again.standardError)")
            #expect(await again.stop() == 0, "\(again.standardError)")
        }
    }
}
