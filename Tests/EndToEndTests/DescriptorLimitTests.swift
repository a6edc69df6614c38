import Foundation
import ServiceRuntime
import EntitlementDefaults
import TestSupport
import Testing

/// The daemon started with few file descriptors (`RLIMIT_NOFILE`, set by `prlimit` before the
/// exec): it refuses with one line naming `EMFILE` (75) before starting anything, never dies of
/// a signal inside the runtime, and never reports the shortage as bad data (65).
@Suite("Descriptor limit", .timeLimit(.minutes(3)))
struct DescriptorLimitTests {
    static let prlimit = "/usr/bin/prlimit"

    /// Starts the daemon on `container` with at most `descriptors` open files, the standard
    /// streams its only open ones (what the test runner leaves open is closed first).
    static func startDaemon(_ fixture: Fixture, container: String, descriptors: Int, _ extra: [String] = []) throws -> ChildProcess {
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && exec {fd}>&-; done; exec "$@""#
        return try ChildProcess(
            executable: "/bin/bash",
            arguments: ["-c", closeInherited, "bash", prlimit, "--nofile=\(descriptors)", BuiltTools.path("entitlementd"),
                        "--container", container, "--group", fixture.group, "--catalog", BuiltTools.defaultCatalog] + extra,
            environment: BuiltTools.environment())
    }

    static func published(_ fixture: Fixture, container: String) -> Bool {
        SnapshotReader(suiteName: fixture.group, container: container).refresh().snapshot != nil
    }

    @Test("With 8 to 24 descriptors the daemon serves or refuses with one line naming EMFILE (75): no signal, no 65",
          .enabled(if: FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)"))
    func fewDescriptors() async throws {
        try await Fixture.with { fixture in
            for descriptors in 8...24 {
                let container = fixture.root + "/container-\(descriptors)"
                let daemon = try Self.startDaemon(fixture, container: container, descriptors: descriptors)
                defer { daemon.send(SIGKILL) }
                let settled = await ChildProcess.wait(timeout: .seconds(20)) { !daemon.isRunning || Self.published(fixture, container: container) }
                #expect(settled, "\(descriptors) descriptors: neither served nor exited: \(daemon.standardError)")
                if daemon.isRunning {
                    // Serving means serving a purchase, with no descriptor shortage on the way.
                    let ingest = try await fixture.run(
                        "entitlementctl",
                        ["ingest", "--wait", "--timeout", "10", "-", "--container", container, "--group", fixture.group,
                         "--catalog", BuiltTools.defaultCatalog],
                        input: DaemonFaultTests.lifetime("95\(descriptors)") + "\n")
                    #expect(ingest.status == 0, "\(descriptors) descriptors: \(ingest.standardError) \(daemon.standardError)")
                    #expect(!daemon.standardError.contains("EMFILE"), "\(descriptors) descriptors: \(daemon.standardError)")
                    #expect(await daemon.stop() == 0, "\(descriptors) descriptors: \(daemon.standardError)")
                    continue
                }
                // Its exit is seen before its last line may be read: wait for the pipes to drain.
                let status = await daemon.waitForExit(timeout: .seconds(5))
                let lines = daemon.standardError.split(separator: "\n")
                #expect(status == 75, "\(descriptors) descriptors: exit \(String(describing: status)): \(daemon.standardError)")
                #expect(lines.count == 1 && lines[0].contains("EMFILE"), "\(descriptors) descriptors: \(daemon.standardError)")
            }
        }
    }

    @Test("With the fewest descriptors it asks for, the daemon serves a purchase",
          .enabled(if: FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)"))
    func minimumIsEnough() async throws {
        try await Fixture.with { fixture in
            let refused = try Self.startDaemon(fixture, container: fixture.container, descriptors: 8)
            _ = await refused.waitForExit(timeout: .seconds(20))
            let message = refused.standardError
            let minimum = try #require(
                message.split(separator: " ").drop { $0 != "least" }.dropFirst().first.flatMap { Int($0) },
                "no minimum in: \(message)")
            let daemon = try Self.startDaemon(fixture, container: fixture.container, descriptors: minimum)
            defer { daemon.send(SIGKILL) }
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { Self.published(fixture, container: fixture.container) }, "\(daemon.standardError)")
            let purchase = DaemonFaultTests.lifetime("9501")
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError) \(daemon.standardError)")
            #expect(fixture.snapshot()?.status(of: "plus").state == .purchased)
            #expect(!daemon.standardError.contains("EMFILE"), "\(daemon.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }
}
