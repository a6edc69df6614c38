import EntitlementDefaults
import Entitlements
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Faults under the real daemon, one step off the happy path: a disk that fills and empties,
/// events the daemon refuses after `ingest` accepted them, inotify unavailable to the client,
/// the container deleted under a running daemon.
@Suite("Daemon faults", .timeLimit(.minutes(3)))
struct DaemonFaultTests {
    /// A lifetime purchase line for the sample catalog.
    static func lifetime(_ id: String, environment: String = "Xcode") -> String {
        Fixture.transaction(id: id, product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil, environment: environment)
    }

    /// Starts the daemon on a fresh container and waits until it is idle: its first snapshot is
    /// published and its state file written (the last write of its start), so a test that fills
    /// the disk or removes the container next does not race the start.
    static func startIdleDaemon(_ fixture: Fixture) async throws -> ChildProcess {
        let daemon = try await fixture.startDaemon()
        guard await ChildProcess.wait(timeout: .seconds(20), until: { FileManager.default.fileExists(atPath: fixture.layout.statePath) }) else {
            await daemon.stop()
            throw FixtureError("entitlementd did not write \(fixture.layout.statePath): \(daemon.standardError)")
        }
        return daemon
    }

    /// The daemon's stderr lines that report a failed drain or publish.
    static func failureLines(_ daemon: ChildProcess) -> [Substring] {
        daemon.standardError.split(separator: "\n").filter { $0.contains(" failed (attempt ") }
    }

    @Test("Disk full at the journal append: the drain is retried with a capped backoff and applies the acknowledged events once space is freed",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func drainRetriedAfterDiskFull() async throws {
        try await Fixture.with { outer in
            try await withTmpfs(in: outer.root, kibibytes: 512) { disk in
                let fixture = Fixture(root: disk)
                let daemon = try await Self.startIdleDaemon(fixture)
                defer { daemon.send(SIGKILL) }
                // A batch larger than a page, and exactly the pages its inbox file needs left free:
                // the inbox file fits, and the journal append (as large, with no page left and
                // less than a page of room at its end) cannot.
                let batch = (1...30).map { Self.lifetime("70\($0 + 10)") }.joined(separator: "\n") + "\n"
                let pages = (batch.utf8.count + 4095) / 4096
                #expect(pages >= 2)
                let filler = try fillFileSystem(in: disk, leavingPages: pages)
                let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: batch)
                #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
                // Two failed tries prove the retry needs no new event.
                let retried = await ChildProcess.wait(timeout: .seconds(20)) { Self.failureLines(daemon).count >= 2 }
                #expect(retried, "no retry: \(daemon.standardError)")
                #expect(fixture.snapshot()?.status(of: "plus").active != true)
                try FileManager.default.removeItem(atPath: filler)
                let applied = await ChildProcess.wait(timeout: .seconds(20)) {
                    fixture.snapshot()?.status(of: "plus").state == .purchased
                        && ((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? ["?"]).isEmpty
                }
                #expect(applied, "events not applied after space was freed: \(daemon.standardError)")
                #expect(await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("recovered after ") })

                let failures = Self.failureLines(daemon)
                #expect(failures.allSatisfy { $0.contains("drain failed") && $0.contains("ENOSPC") && $0.contains("journal") }, "\(failures)")
                let delays = failures.compactMap { line in line.split(separator: " ").dropLast().last.flatMap { Double($0) } }
                #expect(delays.count == failures.count && delays.allSatisfy { $0 > 0 && $0 <= 5 }, "\(failures)")
                #expect(daemon.standardError.split(separator: "\n").filter { $0.contains("recovered after ") }.count == 1)
                #expect(await daemon.stop() == 0)
            }
        }
    }

    @Test("Disk full at the publish after the journal append: the file stays queued, --wait does not succeed, and the retry publishes",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func publishRetriedAfterDiskFull() async throws {
        try await Fixture.with { outer in
            try await withTmpfs(in: outer.root, kibibytes: 512) { disk in
                let fixture = Fixture(root: disk)
                let daemon = try await Self.startIdleDaemon(fixture)
                defer { daemon.send(SIGKILL) }
                // A first event gives the journal a page with room for a second one.
                let monthly = Fixture.transaction(id: "7101", purchased: Date(), expires: Date().addingTimeInterval(3600))
                #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: monthly + "\n").status == 0)
                let before = try #require(fixture.snapshot())
                let filler = try fillFileSystem(in: disk, leavingPages: 1)
                // The inbox file takes the last page, the journal append fits, the snapshot does not.
                let waited = try await fixture.run(
                    "entitlementctl", ["ingest", "--wait", "--timeout", "3", "-"] + fixture.common, input: Self.lifetime("7102") + "\n")
                #expect(waited.status == 75, "--wait reported \(waited.status) with nothing published: \(waited.standardError) \(daemon.standardError)")
                #expect(fixture.snapshot()?.generation == before.generation)
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? []).count == 1)
                try FileManager.default.removeItem(atPath: filler)
                let published = await ChildProcess.wait(timeout: .seconds(20)) {
                    fixture.snapshot()?.status(of: "plus").state == .purchased
                        && ((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? ["?"]).isEmpty
                }
                #expect(published, "not published after space was freed: \(daemon.standardError)")
                #expect(Self.failureLines(daemon).allSatisfy { $0.contains("ENOSPC") }, "\(daemon.standardError)")
                #expect(await daemon.stop() == 0)
            }
        }
    }

    @Test("A daemon started on a full disk keeps retrying its first publish and serves once space is freed, with no restart",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func startOnFullDisk() async throws {
        try await Fixture.with { outer in
            try await withTmpfs(in: outer.root, kibibytes: 256) { disk in
                let fixture = Fixture(root: disk)
                let filler = try fillFileSystem(in: disk, leavingPages: 0)
                let daemon = try BuiltTools.start("entitlementd", fixture.common)
                defer { daemon.send(SIGKILL) }
                let retried = await ChildProcess.wait(timeout: .seconds(20)) { Self.failureLines(daemon).count >= 2 || !daemon.isRunning }
                #expect(retried && daemon.isRunning, "status \(String(describing: daemon.terminationStatus)): \(daemon.standardError)")
                #expect(fixture.snapshot() == nil)
                try FileManager.default.removeItem(atPath: filler)
                #expect(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot() != nil }, "\(daemon.standardError)")
                #expect(await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("recovered after ") })
                let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: Self.lifetime("7501") + "\n")
                #expect(ingest.status == 0, "\(ingest.standardError)")
                #expect(fixture.snapshot()?.status(of: "plus").state == .purchased)
                #expect(await daemon.stop() == 0)
            }
        }
    }

    @Test("ingest --wait exits 0 for events the daemon keeps but does not count (catalogs of different environments), refusing nothing")
    func waitReportsKeptEvent() async throws {
        try await Fixture.with { fixture in
            // The client's catalog: the shipped one, for the LocalTesting environment.
            let catalogDirectory = fixture.root + "/catalog"
            try FileManager.default.createDirectory(atPath: catalogDirectory, withIntermediateDirectories: true)
            let shared = URL(fileURLWithPath: BuiltTools.defaultCatalog).deletingLastPathComponent().path
            try FileManager.default.copyItem(atPath: shared + "/Geko.storekit", toPath: catalogDirectory + "/Geko.storekit")
            let catalog = try String(contentsOfFile: BuiltTools.defaultCatalog, encoding: .utf8)
                .replacingOccurrences(of: "\"environment\": \"Xcode\"", with: "\"environment\": \"LocalTesting\"")
            #expect(catalog.contains("LocalTesting"))
            try catalog.write(toFile: catalogDirectory + "/Catalog.json", atomically: true, encoding: .utf8)

            let daemon = try await Self.startIdleDaemon(fixture)
            defer { daemon.send(SIGKILL) }
            let client = ["--container", fixture.container, "--group", fixture.group, "--catalog", catalogDirectory + "/Catalog.json"]
            let result = try await fixture.run(
                "entitlementctl", ["ingest", "--wait", "-"] + client, input: Self.lifetime("7201", environment: "LocalTesting") + "\n")
            // Kept means kept: journaled, not refused, and granting nothing under the daemon's catalog.
            #expect(result.status == 0, "stdout: \(result.standardOutput) stderr: \(result.standardError)")
            let rejected = (try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.rejectedDirectory)) ?? []
            #expect(rejected.isEmpty, "\(rejected)")
            #expect(fixture.snapshot()?.status(of: "plus").active != true)

            // Events the daemon accepts still succeed, and a plain ingest is unchanged.
            let accepted = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: Self.lifetime("7202") + "\n")
            #expect(accepted.status == 0, "\(accepted.standardError)")
            #expect(fixture.snapshot()?.status(of: "plus").state == .purchased)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("ingest --wait without inotify (no instance allowed) still exits 0 once the events are published",
          .enabled(if: KernelEdgeCaseTests.userNamespacesWork, "needs unprivileged user namespaces (unshare --user)"))
    func waitWithoutInotify() async throws {
        try await Fixture.with { fixture in
            let daemon = try await Self.startIdleDaemon(fixture)
            defer { daemon.send(SIGKILL) }
            let events = fixture.root + "/events.jsonl"
            try Data((Self.lifetime("7301") + "\n").utf8).write(to: URL(fileURLWithPath: events))
            // The limit is lowered inside a user namespace of its own: nobody else is affected.
            let client = try ChildProcess(
                executable: "/usr/bin/unshare",
                arguments: ["--user", "--map-root-user", "/bin/sh", "-c",
                            "echo 0 > /proc/sys/user/max_inotify_instances || exit 90; exec \"$0\" \"$@\"",
                            BuiltTools.path("entitlementctl"), "ingest", "--wait", events] + fixture.common,
                environment: BuiltTools.environment())
            let status = await client.waitForExit(timeout: .seconds(60))
            if status == nil { await client.stop(grace: .seconds(1)) }
            #expect(status == 0, "stdout: \(client.standardOutput) stderr: \(client.standardError)")
            #expect(client.standardOutput.hasPrefix("published generation "), "\(client.standardOutput)")
            #expect(fixture.snapshot()?.status(of: "plus").state == .purchased)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("rm -rf of the container under a running daemon: it exits 75 within a second with one line, and a new daemon serves the path alone")
    func containerRemovedStopsDaemon() async throws {
        try await Fixture.with { fixture in
            let daemon = try await Self.startIdleDaemon(fixture)
            defer { daemon.send(SIGKILL) }
            // Its start-up lines have arrived (stderr is read as it comes): only the exit line follows.
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { daemon.standardError.contains("published generation 1") })
            let linesBefore = daemon.standardError.split(separator: "\n").count
            let clock = ContinuousClock()
            try FileManager.default.removeItem(atPath: fixture.container)
            let removed = clock.now
            let status = await daemon.waitForExit(timeout: .seconds(10))
            // Timed to the exit itself, as the reaper thread saw it, not to when this test looked.
            let elapsed = (daemon.exitInstant ?? clock.now) - removed
            print("containerRemovedStopsDaemon: the daemon exited \(elapsed) after the container was removed")
            #expect(status == 75, "\(daemon.standardError)")
            // The promise is a second (typically 0.05-0.2 s here); the bound leaves a loaded
            // machine room, and still fails a daemon that only notices at its next timer.
            #expect(elapsed < .seconds(3), "took \(elapsed)")
            let newLines = daemon.standardError.split(separator: "\n").dropFirst(linesBefore)
            #expect(newLines.count == 1, "\(newLines)")
            #expect(newLines.first?.contains(fixture.layout.daemonLockPath) == true, "\(newLines)")
            #expect(newLines.first?.contains("removed") == true, "\(newLines)")

            // The path is free again: a supervisor's restart takes it, and is its only writer.
            let second = try await fixture.startDaemon()
            defer { second.send(SIGKILL) }
            #expect(fixture.snapshot() != nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: Self.lifetime("7401") + "\n")
            #expect(ingest.status == 0, "\(ingest.standardError)")
            #expect(await second.stop() == 0)
        }
    }

    @Test("ingest --wait whose queued events vanish with the container exits 69, not 0")
    func waitOutlivedByItsInbox() async throws {
        try await Fixture.with { fixture in
            let daemon = try await Self.startIdleDaemon(fixture)
            defer {
                daemon.send(SIGCONT)
                daemon.send(SIGKILL)
            }
            // Stopped, the daemon still holds its lock but applies nothing.
            daemon.send(SIGSTOP)
            let events = fixture.root + "/events.jsonl"
            try Data((Self.lifetime("7601") + "\n").utf8).write(to: URL(fileURLWithPath: events))
            let client = try BuiltTools.start("entitlementctl", ["ingest", "--wait", events] + fixture.common)
            defer { client.send(SIGKILL) }
            let queued = await ChildProcess.wait(timeout: .seconds(20)) {
                ((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? []).contains { $0.hasSuffix(".events") }
            }
            #expect(queued, "\(client.standardError)")
            // Moved away in one step, then removed: the client sees the whole container go at once.
            try FileManager.default.moveItem(atPath: fixture.container, toPath: fixture.container + ".removed")
            try FileManager.default.removeItem(atPath: fixture.container + ".removed")
            let status = await client.waitForExit(timeout: .seconds(20))
            #expect(status == 69, "stdout: \(client.standardOutput) stderr: \(client.standardError)")
            #expect(client.standardError.contains("removed with the queued events"), "\(client.standardError)")
            daemon.send(SIGCONT)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 75, "\(daemon.standardError)")
        }
    }

    @Test("The fault harness's short form: disk full, container removal and kill -9 rounds leave nothing unapplied or lost")
    func faultRounds() async throws {
        // The harness is `Stress/FaultHarness.swift`; set FAULT_ROUNDS (e.g. 300) for its long form.
        let rounds = ProcessInfo.processInfo.environment["FAULT_ROUNDS"].flatMap(Int.init) ?? 12
        let harness = FaultHarness(
            options: .init(rounds: rounds), catalogPath: BuiltTools.defaultCatalog,
            catalog: try Catalog.load(path: BuiltTools.defaultCatalog), group: "group.com.irenews.geko")
        let report = try await harness.run()
        #expect(report.passed, "\(report.text)")
        #expect(report.rounds == rounds)
        #expect(report.unapplied == 0)
        #expect(report.lost == 0)
        #expect(report.secondWriters == 0)
        #expect((report.counts[.containerRemoved] ?? 0) > 0)
        if isRoot {
            #expect(report.diskFullRounds > 0, "\(report.text)")
        } else {
            print("faultRounds: disk-full rounds skipped: needs root to mount a small tmpfs")
        }
    }
}
