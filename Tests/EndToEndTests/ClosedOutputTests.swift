import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A follower's job is its output: once the reader of its standard output is gone
/// (`widget-renderer --follow | head -1`), it ends, as every Unix filter does. A daemon's
/// logging is not its job: a closed stderr stops nothing.
@Suite("Closed output", .timeLimit(.minutes(2)))
struct ClosedOutputTests {
    /// Runs `script` under `bash -o pipefail`; a script reports the process it starts on stderr
    /// as `pid N` (``reportedPID(_:)``), so that cleanup can end it.
    static func bash(_ script: String) throws -> ChildProcess {
        try ChildProcess(executable: "/bin/bash", arguments: ["-o", "pipefail", "-c", script], environment: BuiltTools.environment())
    }

    /// The process ID the script reported as `pid N` on stderr.
    static func reportedPID(_ child: ChildProcess) -> pid_t? {
        child.standardError.split(separator: "\n").lazy.compactMap { $0.hasPrefix("pid ") ? pid_t($0.dropFirst(4)) : nil }.first
    }

    static func quote(_ words: [String]) -> String { words.map { "'\($0)'" }.joined(separator: " ") }

    @Test("widget-renderer --follow | head -1 ends, exit 0, at the first frame written after head left")
    func followerEndsWhenItsReaderLeaves() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let follower = Self.quote([BuiltTools.path("widget-renderer")] + fixture.common + ["--follow", "--format", "json", "--family", "systemSmall"])
            let pipeline = try Self.bash("( echo \"pid $BASHPID\" >&2; exec \(follower) ) | head -1")
            defer {
                if pipeline.isRunning, let pid = Self.reportedPID(pipeline) { kill(pid, SIGKILL) }
                pipeline.send(SIGKILL)
            }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { pipeline.standardOutput.contains("\"family\"") })
            // head has its line and is gone (or going); the next frame finds the pipe closed.
            let purchase = Fixture.transaction(id: "8001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            let status = await pipeline.waitForExit(timeout: .seconds(10))
            #expect(status == 0, "pipeline: \(status.map(String.init) ?? "still running") \(pipeline.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("widget-renderer --follow | head -1 ends, exit 0, when head leaves, with nothing published since")
    func followerEndsWhenItsReaderLeavesWithoutAnotherFrame() async throws {
        try await Fixture.with { fixture in
            // A lifetime purchase: its timeline never reloads, so no frame follows the first.
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let purchase = Fixture.transaction(id: "8201", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            let follower = Self.quote([BuiltTools.path("widget-renderer")] + fixture.common + ["--follow", "--format", "json", "--family", "systemSmall"])
            let pipeline = try Self.bash("( echo \"pid $BASHPID\" >&2; exec \(follower) ) | head -1")
            defer {
                if pipeline.isRunning, let pid = Self.reportedPID(pipeline) { kill(pid, SIGKILL) }
                pipeline.send(SIGKILL)
            }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { pipeline.standardOutput.contains("\"family\"") })
            let status = await pipeline.waitForExit(timeout: .seconds(10))
            #expect(status == 0, "pipeline: \(status.map(String.init) ?? "still running") \(pipeline.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A daemon whose stderr reader left keeps applying purchases, and stops cleanly on SIGTERM")
    func daemonOutlivesItsLogReader() async throws {
        try await Fixture.with { fixture in
            let daemon = Self.quote([BuiltTools.path("entitlementd")] + fixture.common)
            // Its log's reader takes one line and leaves: every later log line meets a closed pipe.
            let pipeline = try Self.bash("( echo \"pid $BASHPID\" >&2; exec \(daemon) 2>&1 ) | { head -1 >/dev/null; echo done >&2; }")
            defer {
                if pipeline.isRunning, let pid = Self.reportedPID(pipeline) { kill(pid, SIGKILL) }
                pipeline.send(SIGKILL)
            }
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { pipeline.standardError.contains("done") })
            let pid = try #require(Self.reportedPID(pipeline))
            let purchase = Fixture.transaction(id: "8101", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            #expect(fixture.snapshot()?.entitlements["plus"]?.active == true)
            #expect(kill(pid, 0) == 0, "the daemon is gone")
            kill(pid, SIGTERM)
            // With pipefail the pipeline's status is the daemon's (its reader's is 0).
            let status = await pipeline.waitForExit(timeout: .seconds(10))
            #expect(status == 0, "daemon: \(status.map(String.init) ?? "still running")")
        }
    }
}
