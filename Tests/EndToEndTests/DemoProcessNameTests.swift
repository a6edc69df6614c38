import Foundation
import Glibc
import ServiceRuntime
import Synchronization
import Testing
import TestSupport

/// The processes the demo starts run under their tools' names, so `pgrep entitlementd` and `ps`
/// find them, and none of them outlives the demo.
@Suite("Demo process names", .timeLimit(.minutes(2)))
struct DemoProcessNameTests {
    /// Every live child of `parent`, by process ID: the kernel lists each thread's children in
    /// `/proc/<parent>/task/<tid>/children` (no scan of all of `/proc`, which races with every
    /// other process a loaded machine starts and ends).
    static func children(of parent: Int32) -> [Int32: ProcessStat] {
        let tasks = "/proc/\(parent)/task"
        var found: [Int32: ProcessStat] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            let listed = (try? String(contentsOfFile: "\(tasks)/\(task)/children", encoding: .utf8)) ?? ""
            for pid in listed.split(separator: " ").compactMap({ Int32($0) }) {
                guard let stat = ProcessStat(pid: pid), stat.parent == parent else { continue }
                found[pid] = stat
            }
        }
        return found
    }

    /// Whether the process seen as `stat` under `pid` still runs (the same process, not a zombie).
    static func isAlive(_ pid: Int32, _ stat: ProcessStat) -> Bool {
        guard let now = ProcessStat(pid: pid) else { return false }
        return now.startTime == stat.startTime && now.name == stat.name && now.state != "Z"
    }

    @Test("While the demo runs, its daemon and followers are named entitlementd and widget-renderer; they end with it")
    func childrenRunUnderToolNames() async throws {
        try await withTemporaryDirectory { tmp in
            let demo = try BuiltTools.start(
                "entitlement-demo", ["--trial-seconds", "30", "--catalog", BuiltTools.defaultCatalog], environment: ["TMPDIR": tmp])
            // A loaded machine may take a while to start the demo and its children; they are looked
            // for from a thread of its own, which other tests cannot keep from looking.
            let seenSoFar = Mutex<[Int32: ProcessStat]>([:])
            _ = await eventuallyOnOwnThread(timeout: .seconds(60), interval: .milliseconds(10)) {
                let names = seenSoFar.withLock { seen in
                    // The latest look at each child wins: a child seen between its fork and its
                    // exec still carries the name of the demo's thread that started it.
                    seen.merge(Self.children(of: demo.processIdentifier)) { _, latest in latest }
                    return Set(seen.values.map(\.name))
                }
                // Stopped once its daemon serves: a daemon signalled before it listens for signals
                // (its first milliseconds) dies by the signal instead of exiting 0.
                return names.isSuperset(of: ["entitlementd", "widget-renderer"]) && demo.standardOutput.contains("published generation 1")
                    || !demo.isRunning
            }
            let seen = seenSoFar.withLock { $0 }
            _ = await demo.stop()
            // The demo stops its children before it exits; any left over is killed here so the
            // test leaves nothing running, and is reported.
            let survivorsGone = await ChildProcess.wait(timeout: .seconds(10)) { !seen.contains { Self.isAlive($0.key, $0.value) } }
            let survivors = seen.filter { Self.isAlive($0.key, $0.value) }
            for pid in survivors.keys { kill(pid, SIGKILL) }
            #expect(survivorsGone, "still running after the demo stopped: \(survivors.mapValues(\.name))")
            let names = Set(seen.values.map(\.name))
            #expect(names.isSuperset(of: ["entitlementd", "widget-renderer"]),
                    "children seen: \(names.sorted()); demo output: \(demo.standardOutput) \(demo.standardError)")
            #expect(!names.contains("exe"))
            #expect(demo.standardOutput.contains("daemon exited with status 0"), "\(demo.standardOutput)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        }
    }
}
