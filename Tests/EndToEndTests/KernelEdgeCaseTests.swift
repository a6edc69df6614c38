import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// The kernel's edge cases, against the real tools: event floods, a container removed under
/// running readers, the inotify watch limit, and a full disk.
@Suite("Kernel edge cases", .timeLimit(.minutes(2)))
struct KernelEdgeCaseTests {
    /// User namespaces let a test lower its own inotify limit and mount a tiny tmpfs without
    /// touching the machine's settings; where they are not allowed these tests cannot run.
    static let userNamespacesWork: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "--mount", "true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// A `widget-renderer --follow --format json` on `container`, started inside `prefix` (e.g. unshare).
    static func follower(container: String, group: String, prefix: [String] = []) throws -> (ChildProcess, TimestampedLines) {
        let lines = TimestampedLines()
        let command = prefix + [BuiltTools.path("widget-renderer"), "--follow", "--format", "json", "--family", "accessoryInline",
                                "--container", container, "--group", group, "--catalog", BuiltTools.defaultCatalog]
        let child = try ChildProcess(executable: command[0], arguments: Array(command.dropFirst()), environment: BuiltTools.environment()) { stream, line in
            if stream == .standardOutput { lines.append(line) }
        }
        return (child, lines)
    }

    static func lastGeneration(_ lines: TimestampedLines) -> Int? {
        guard let line = lines.all.last?.line,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object["generation"] as? Int
    }

    /// Publishes `count` generations from `start` in a tight loop, without fsync, from this process.
    static func publish(_ container: String, group: String, start: Int, count: Int) async throws {
        try await StressPublisher.publish(Int64(start)...Int64(start + count - 1), container: container, group: group, durable: false)
    }

    @Test("A flood of publishes: every follower converges on the final generation")
    func floodConverges() async throws {
        try await Fixture.with { fixture in
            let followers = try (0..<3).map { _ in try Self.follower(container: fixture.container, group: fixture.group) }
            defer { for (child, _) in followers { child.send(SIGKILL) } }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { followers.allSatisfy { !$0.1.all.isEmpty } })
            try await Self.publish(fixture.container, group: fixture.group, start: 1, count: 4000)
            for (child, lines) in followers {
                #expect(await ChildProcess.wait(timeout: .seconds(20)) { Self.lastGeneration(lines) == 4000 }, "\(child.standardError)")
                #expect(await child.stop() == 0)
            }
        }
    }

    @Test("The container removed and recreated under running followers: they re-arm and recover")
    func containerRecreated() async throws {
        try await Fixture.with { fixture in
            let followers = try (0..<2).map { _ in try Self.follower(container: fixture.container, group: fixture.group) }
            defer { for (child, _) in followers { child.send(SIGKILL) } }
            try await Self.publish(fixture.container, group: fixture.group, start: 1, count: 20)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { followers.allSatisfy { Self.lastGeneration($0.1) == 20 } })
            try FileManager.default.removeItem(atPath: fixture.container)
            try await Self.publish(fixture.container, group: fixture.group, start: 21, count: 20)
            for (child, lines) in followers {
                #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.lastGeneration(lines) == 40 }, "\(child.standardError)")
                #expect(await child.stop() == 0)
            }
        }
    }

    /// The paths a process has open, as `/proc/PID/fd` names them (a removed file or directory
    /// reads `PATH (deleted)`).
    static func openPaths(of pid: Int32) -> [String] {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0) }
    }

    /// The order `rm -rf` can produce, made deterministic: the suite file goes first and the
    /// follower refreshes (finds it missing) before its directory goes. Linux holds back a
    /// directory's `IN_DELETE_SELF`/`IN_IGNORED` until the last reference to it is closed, so a
    /// follower that kept the directory open here would never learn it was removed.
    @Test("The suite file removed, the follower refreshes, then the container removed and recreated: it recovers")
    func fileRemovedThenContainerRecreated() async throws {
        try await Fixture.with { fixture in
            let (child, lines) = try Self.follower(container: fixture.container, group: fixture.group)
            defer { child.send(SIGKILL) }
            try await Self.publish(fixture.container, group: fixture.group, start: 1, count: 3)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.lastGeneration(lines) == 3 }, "\(child.standardError)")
            let suiteFile = fixture.layout.sharedFilePath
            #expect(Self.openPaths(of: child.processIdentifier).contains(suiteFile), "the follower keeps the file it read open")
            try FileManager.default.removeItem(atPath: suiteFile)
            // The follower has refreshed once it let go of the removed file.
            #expect(await ChildProcess.wait(timeout: .seconds(10)) {
                !Self.openPaths(of: child.processIdentifier).contains { $0.hasPrefix(suiteFile) }
            }, "\(Self.openPaths(of: child.processIdentifier))")
            let preferences = fixture.layout.preferencesDirectory
            #expect(await ChildProcess.wait(timeout: .seconds(5)) {
                !Self.openPaths(of: child.processIdentifier).contains { $0.hasPrefix(preferences) }
            }, "a follower whose file is missing holds nothing in its directory: \(Self.openPaths(of: child.processIdentifier))")
            try FileManager.default.removeItem(atPath: fixture.container)
            try await Self.publish(fixture.container, group: fixture.group, start: 4, count: 3)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.lastGeneration(lines) == 6 }, "\(child.standardError)")
            #expect(await child.stop() == 0)
        }
    }

    @Test("At the inotify watch limit a follower says which limit and still follows by polling",
          .enabled(if: userNamespacesWork, "needs unprivileged user namespaces (unshare --user)"))
    func watchLimit() async throws {
        try await Fixture.with { fixture in
            let prefix = ["/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c",
                          "echo 0 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\""]
            let (child, lines) = try Self.follower(container: fixture.container, group: fixture.group, prefix: prefix)
            defer { child.send(SIGKILL) }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { child.standardError.contains("/proc/sys/fs/inotify/max_user_watches") },
                    "stderr: \(child.standardError)")
            #expect(child.standardError.split(separator: "\n").count == 1)
            try await Self.publish(fixture.container, group: fixture.group, start: 1, count: 5)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.lastGeneration(lines) == 5 }, "stdout: \(child.standardOutput)")
            #expect(await child.stop() == 0)
        }
    }

    @Test("Disk full while queueing: ingest exits 75, leaves nothing half-written, and works once there is room",
          .enabled(if: userNamespacesWork, "needs unprivileged user and mount namespaces (unshare --user --mount)"))
    func diskFull() async throws {
        try await Fixture.with { fixture in
            let disk = fixture.root + "/disk"
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let event = fixture.root + "/event.jsonl"
            try Data((Fixture.transaction(id: "9001", purchased: Date(), expires: Date().addingTimeInterval(3600)) + "\n").utf8)
                .write(to: URL(fileURLWithPath: event))
            let ctl = "\"$CTL\" ingest \"$EV\" --container \"$D/c\" --catalog \"$CAT\""
            let script = """
                mount -t tmpfs -o size=256k none "$D" || exit 90
                \(ctl) >/dev/null 2>&1; echo "first=$?"
                dd if=/dev/zero of="$D/fill" bs=4k count=1000 2>/dev/null
                \(ctl) 2>"$ERR" >/dev/null; echo "full=$?"
                echo "inbox=$(ls -A "$D/c/Library/Broker/inbox" | wc -l)"
                echo "temps=$(ls -A "$D/c/Library/Broker/inbox" | grep -c '^\\.')"
                rm "$D/fill"
                \(ctl) >/dev/null 2>&1; echo "after=$?"
                echo "inbox=$(ls -A "$D/c/Library/Broker/inbox" | wc -l)"
                """
            let child = try ChildProcess(
                executable: "/usr/bin/unshare", arguments: ["--user", "--map-root-user", "--mount", "/bin/sh", "-c", script],
                environment: BuiltTools.environment([
                    "D": disk, "CTL": BuiltTools.path("entitlementctl"), "EV": event, "CAT": BuiltTools.defaultCatalog,
                    "ERR": fixture.root + "/stderr",
                ]))
            #expect(await child.waitForExit(timeout: .seconds(30)) == 0)
            let output = child.standardOutput.split(separator: "\n").map(String.init)
            #expect(output == ["first=0", "full=75", "inbox=1", "temps=0", "after=0", "inbox=2"], "\(child.standardOutput) \(child.standardError)")
            let error = try String(contentsOfFile: fixture.root + "/stderr", encoding: .utf8)
            #expect(error.contains("ENOSPC"), "\(error)")
            #expect(error.split(separator: "\n").count == 1)
        }
    }
}
