import Foundation
import Testing

/// `entitlement-bench`'s output contract, with the hidden `--smoke` sizes (seconds, not minutes;
/// the numbers mean nothing, only the shape is checked). CI never runs the real benchmark.
@Suite("Benchmark output shape", .timeLimit(.minutes(1)))
struct BenchmarkShapeTests {
    /// The keys the last JSON line must carry (BENCHMARKS.md), as paths through nested objects.
    static let requiredNumbers = [
        "propagation.durable.p50_us", "propagation.durable.p99_us", "propagation.durable.floor_p50_us", "propagation.durable.floor_p99_us",
        "propagation.tmpfs.p50_us", "propagation.tmpfs.p99_us", "propagation.tmpfs.floor_p50_us", "propagation.tmpfs.floor_p99_us",
        "fanout64.p99_us", "check_ns", "decode_us_100", "decode_us_1000", "decode_floor_value_tree_us.100", "unchanged_us", "ingest_per_s", "verified_ingest_per_s", "daemon_rss_mib", "renderer_ms",
        "companion.p50_us", "companion.floor_p50_us", "companion.catchup_events_per_s",
    ]

    @Test("--format json ends with one object holding every required key as a number")
    func jsonShape() async throws {
        let result = try await LabTools.run(
            "entitlement-bench", ["--smoke", "--format", "json", "--catalog", LabTools.defaultCatalog], timeout: .seconds(50))
        #expect(result.status == 0, "stderr: \(result.error.suffix(2000))")
        let lastLine = try #require(result.output.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any])
        for path in Self.requiredNumbers {
            var value: Any? = object
            for component in path.split(separator: ".") { value = (value as? [String: Any])?[String(component)] }
            let number = value as? NSNumber
            #expect(number != nil && number!.doubleValue > 0, "\(path) is \(String(describing: value)) in \(lastLine)")
        }
        #expect((object["errors"] as? [Any])?.isEmpty == true, "errors: \(String(describing: object["errors"]))")
    }

    @Test("A benchmark ended by SIGTERM ends the processes it started (its daemon) and dies by the same signal")
    func terminationStopsChildren() async throws {
        let directory = NSTemporaryDirectory() + "bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.terminateBenchWithChildren(in: directory)
    }

    private static func terminateBenchWithChildren(in directory: String) async throws {
        // The restart bench starts entitlementd at once, to time its start on an empty container.
        let bench = try LabTools.Child(
            "entitlement-bench", ["--role", "restart", "--quick", "--directory", directory], workingDirectory: LabTools.productRoot)
        defer {
            bench.send(SIGKILL)
            // A daemon started after the lookout gave up is not left running either.
            if let late = runningDaemon(in: directory) { kill(late, SIGKILL) }
        }
        // The bench's daemons live a few hundred milliseconds each: SIGTERM goes out the moment
        // one is seen running.
        var daemon: Int32?
        _ = await waitUntil(timeout: .seconds(30)) {
            guard let pid = runningDaemon(in: directory) else { return !bench.isRunning }
            daemon = pid
            bench.send(SIGTERM)
            return true
        }
        let pid = try #require(daemon, "the bench exited before starting a daemon: \(bench.standardError.suffix(2000))")
        let status = await bench.waitForExit(timeout: .seconds(30))
        #expect(status == 128 + SIGTERM, "stderr: \(bench.standardError.suffix(2000))")
        let gone = await waitUntil(timeout: .seconds(30)) { !isRunning(pid) }
        #expect(gone, "daemon \(pid) still runs after the bench was stopped")
        if !gone { kill(pid, SIGKILL) }
    }

    @Test("An unknown option is a usage error (64) and prints no result")
    func usageError() async throws {
        let result = try await LabTools.run("entitlement-bench", ["--fast"])
        #expect(result.status == 64)
        #expect(result.error.hasPrefix("Error: Unknown option '--fast'"))
        #expect(result.output.isEmpty)
    }
}

/// A running daemon of a bench, found by the pid in its container's lock file (every container of
/// the bench's workspace is under `directory`).
private func runningDaemon(in directory: String) -> Int32? {
    let locks = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter {
        $0.hasSuffix("Library/Broker/entitlementd.lock")
    }
    for lock in locks {
        let text = (try? String(contentsOfFile: directory + "/" + lock, encoding: .utf8)) ?? ""
        if let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), isRunning(pid) { return pid }
    }
    return nil
}

/// A process that is gone, or a zombie until whoever inherited it reaps it, has ended.
private func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    // The state is the field after the command name, which ends at the last ')'.
    return stat[stat.index(after: close)...].dropFirst().first != "Z"
}
