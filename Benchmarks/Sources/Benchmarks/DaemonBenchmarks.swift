import Broker
import Entitlements
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import EntitlementDefaults
import SharedDefaults

/// The costs that need the real daemon and renderer: idle memory, durable ingest throughput
/// with group commit, and one-shot render time.
enum DaemonBenchmarks {
    static let group = "group.com.irenews.geko"

    /// Starts `entitlementd` on `container` (with `extra` arguments) and waits until it has
    /// published a snapshot of a generation above `after`.
    static func startDaemon(container: String, catalogPath: String, extra: [String] = [], after: Int64 = 0) throws(BenchmarkError) -> SpawnedProcess {
        try Workspace.makeDirectories(container)
        let log = container + "/entitlementd.log"
        let daemon = try PackageTool("entitlementd").start(["--container", container, "--catalog", catalogPath] + extra, logPath: log)
        let reader = SnapshotReader(suiteName: group, container: container)
        let deadline = MonotonicClock.now() + 120_000_000_000
        while (reader.refresh().snapshot?.generation ?? 0) <= after {
            guard daemon.isRunning, MonotonicClock.now() < deadline else {
                daemon.stop()
                let lastLine = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? "no log"
                throw BenchmarkError("entitlementd did not publish a first snapshot in \(container): \(lastLine)")
            }
            usleep(200)
        }
        return daemon
    }

    /// `VmRSS` of process `pid`, in MiB.
    static func residentMemory(pid: pid_t) throws(BenchmarkError) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kibibytes = line.split(separator: " ").compactMap({ Double($0) }).first
        else { throw BenchmarkError("no VmRSS in /proc/\(pid)/status") }
        return kibibytes / 1024
    }

    /// Resident memory (MiB) of a daemon that has started, published and then sat idle for `idle` seconds.
    static func idleMemory(container: String, catalogPath: String, idle: Double) throws(BenchmarkError) -> Double {
        let daemon = try startDaemon(container: container, catalogPath: catalogPath)
        defer { daemon.stop() }
        usleep(UInt32(idle * 1e6))
        return try residentMemory(pid: daemon.pid)
    }

    /// Wall time (ms) of each one-shot `widget-renderer --format json` run on `container`, and of
    /// a spawn and exit of the process floor (``floorCommand``) right before each: the two
    /// medians then come from the same moments of a machine whose speed moves between seconds.
    static func renderTimes(container: String, catalogPath: String, runs: Int) throws(BenchmarkError) -> (render: [Double], floor: [Double]) {
        let tool = PackageTool("widget-renderer")
        let floor = try floorCommand()
        var times: (render: [Double], floor: [Double]) = ([], [])
        for _ in 0..<runs {
            let floorStart = MonotonicClock.now()
            let floorChild = try SpawnedProcess(executable: floor.executable, arguments: floor.exit)
            floorChild.waitForExit()
            times.floor.append(Double(MonotonicClock.now() - floorStart) / 1e6)

            let start = MonotonicClock.now()
            let child = try tool.start(["--container", container, "--catalog", catalogPath, "--format", "json"], logPath: container + "/widget-renderer.log")
            let status = child.waitForExit()
            let elapsed = MonotonicClock.now() - start
            guard child.exitCode == 0 else { throw BenchmarkError("widget-renderer exited with status \(status)") }
            times.render.append(Double(elapsed) / 1e6)
        }
        return times
    }

    /// `--role profile render [runs]`: the one-shot render row alone, `runs` renders each after a
    /// spawn of the process floor (``renderTimes(container:catalogPath:runs:)``), on a container a
    /// daemon has published to; prints both medians and their ratio.
    static func profileRender(runs: Int, catalogPath: String) throws(BenchmarkError) {
        let root = try Workspace.make(under: "/tmp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let container = root + "/render"
        try startDaemon(container: container, catalogPath: catalogPath).stop()
        let (render, floor) = try renderTimes(container: container, catalogPath: catalogPath, runs: runs)
        let renderMedian = median(render), floorMedian = median(floor)
        print(
            String(
                format: "render: one-shot %@ median %.2f ms, floor (spawn and exit) median %.2f ms, %.2f× floor, %d runs",
                PackageTool("widget-renderer").name, renderMedian, floorMedian, renderMedian / floorMedian, runs))
    }

    /// The floor under the two rows above: a process of the shipped tools' runtime (Swift runtime,
    /// Dispatch, FoundationEssentials: `entitlement-bench-floor`, built next to the bench) that
    /// does nothing, as the executable and the arguments that make it wait for a signal or exit at once.
    static func floorCommand() throws(BenchmarkError) -> (executable: String, idle: [String], exit: [String]) {
        (try PackageTool("entitlement-bench-floor").checkedExecutable(), ["idle"], ["exit"])
    }

    /// The resident memory (MiB) of the process floor (``floorCommand``) after `idle` seconds.
    static func processFloorMemory(idle: Double) throws(BenchmarkError) -> Double {
        let floor = try floorCommand()
        let sleeper = try SpawnedProcess(executable: floor.executable, arguments: floor.idle)
        defer { sleeper.stop() }
        usleep(UInt32(idle * 1e6))
        return try residentMemory(pid: sleeper.pid)
    }
}
