import Broker
import Entitlements
import StoreKitFormats
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import EntitlementDefaults
import SharedDefaults

/// `entitlement-bench --role restart [--quick | --targets] [--directory DIR]`: how long `entitlementd` takes
/// to restart, and how much memory it then holds, after a history of 1k to 1M events.
///
/// For each shape and size, the real daemon ingests the history through the inbox (in files of
/// 4,096 events, without fsync: the preparation is not what is measured) and is stopped; then it
/// is started again three times on that container, durably, and each time the wall time from
/// spawn to its first published snapshot and its resident memory just after are taken. The
/// first row is the floor measured in the same run: the same start on an empty container.
/// Shapes: renewals of 100 subscriptions (what a real user accumulates) and distinct
/// transactions (each its own subscription, so nothing can be compacted away). `--targets` runs
/// each shape at its target size only.
enum RestartBenchmark {
    struct Shape {
        var name: String
        var sizes: [Int]
        /// Restart target at `targetSize` (ms, MiB).
        var targetSize: Int
        var targetMilliseconds: Double
        var targetMemory: Double
        var line: (Int, Catalog) -> String
    }

    struct Row {
        var shape: String
        var events: Int
        var journalMiB: Double
        var restartMilliseconds: Double
        /// CPU time (user + system) the daemon used until its first publish: what the restart
        /// costs whatever else the machine runs.
        var cpuMilliseconds: Double
        var memoryMiB: Double
        var target: String
    }

    static let base = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01

    static func transaction(id: String, original: String, purchased: Date, catalog: Catalog) -> String {
        StoreTransaction(
            transactionId: id, originalTransactionId: original, bundleId: catalog.bundleId, productId: "com.irenews.geko.plus.monthly",
            purchaseDate: purchased, expiresDate: purchased.addingTimeInterval(3600), type: .autoRenewable, signedDate: purchased,
            environment: catalog.environment
        ).jsonRepresentation.serialized
    }

    static func shapes(quick: Bool) -> [Shape] {
        [
            Shape(
                name: "renewals of 100 subscriptions", sizes: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000],
                targetSize: 1_000_000, targetMilliseconds: 50, targetMemory: 20,
                line: { index, catalog in
                    // Subscription index % 100, one renewal an hour each.
                    transaction(
                        id: "renewal-\(index)", original: "subscription-\(index % 100)",
                        purchased: base.addingTimeInterval(Double(index / 100) * 3600), catalog: catalog)
                }),
            Shape(
                name: "distinct transactions", sizes: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 200_000, 1_000_000],
                targetSize: 200_000, targetMilliseconds: 500, targetMemory: 96,
                line: { index, catalog in
                    transaction(id: "distinct-\(index)", original: "distinct-\(index)", purchased: base.addingTimeInterval(Double(index)), catalog: catalog)
                }),
        ]
    }

    static func run(_ arguments: [String]) throws(BenchmarkError) {
        let quick = arguments.contains("--quick")
        var parent = NSTemporaryDirectory()
        if let index = arguments.firstIndex(of: "--directory"), index + 1 < arguments.count { parent = arguments[index + 1] }
        let catalogPath = EntitlementBench.locateDefaultCatalog() ?? "Shared/Catalog.json"
        let catalog: Catalog
        do { catalog = try Catalog.load(path: catalogPath) } catch { throw BenchmarkError("\(catalogPath): \(error)") }
        let workspace = try Workspace.make(under: parent)
        defer { try? FileManager.default.removeItem(atPath: workspace) }

        var rows: [Row] = []
        let floor = try measure(container: workspace + "/empty", catalogPath: catalogPath)
        rows.append(
            Row(
                shape: "empty container (floor)", events: 0, journalMiB: 0, restartMilliseconds: floor.milliseconds,
                cpuMilliseconds: floor.cpuMilliseconds, memoryMiB: floor.memory, target: ""))
        report(rows.last!)
        let targetsOnly = arguments.contains("--targets")
        for shape in shapes(quick: quick) {
            for size in targetsOnly ? [shape.targetSize] : shape.sizes {
                let container = workspace + "/\(shape.name.filter(\.isLetter))-\(size)"
                try prepare(container: container, catalogPath: catalogPath, catalog: catalog, events: size, line: shape.line)
                let journal = ContainerLayout(container: container, group: DaemonBenchmarks.group).journalPath
                let journalBytes = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0
                let measured = try measure(container: container, catalogPath: catalogPath)
                var target = ""
                if size == shape.targetSize {
                    let met = measured.milliseconds <= shape.targetMilliseconds && measured.memory <= shape.targetMemory
                    target = "\(met ? "met" : "MISSED"): <= \(Int(shape.targetMilliseconds)) ms, <= \(Int(shape.targetMemory)) MiB"
                }
                rows.append(
                    Row(
                        shape: shape.name, events: size, journalMiB: Double(journalBytes) / 1_048_576, restartMilliseconds: measured.milliseconds,
                        cpuMilliseconds: measured.cpuMilliseconds, memoryMiB: measured.memory, target: target))
                report(rows.last!)
                try? FileManager.default.removeItem(atPath: container)
            }
        }
        StandardStreams.writeOut("\n" + table(rows, directory: Workspace.describe(workspace)))
    }

    /// Queues `events` lines in inbox files of 4,096 and lets the daemon (no fsync) apply them all.
    static func prepare(container: String, catalogPath: String, catalog: Catalog, events: Int, line: (Int, Catalog) -> String) throws(BenchmarkError) {
        let layout = ContainerLayout(container: container, group: DaemonBenchmarks.group)
        let client = IngestClient(layout: layout, catalog: catalog)
        let daemon = try DaemonBenchmarks.startDaemon(container: container, catalogPath: catalogPath, extra: ["--no-fsync"])
        defer { daemon.stop(grace: 60) }
        // Waits until at most `backlog` inbox files are left; a daemon that died or stalls for
        // ten minutes ends the preparation with an error instead of a wait forever.
        func waitForBacklog(atMost backlog: Int) throws(BenchmarkError) {
            let deadline = MonotonicClock.now() + 600_000_000_000
            while ((try? InboxBacklog.count(layout.inboxDirectory)) ?? (backlog + 1)) > backlog {
                guard daemon.isRunning else { throw BenchmarkError("entitlementd exited while applying the history in \(container)") }
                guard MonotonicClock.now() < deadline else { throw BenchmarkError("entitlementd did not drain \(container) within 10 minutes") }
                usleep(2000)
            }
        }
        var next = 0
        while next < events {
            let count = min(4096, events - next)
            do { _ = try client.enqueue((next..<(next + count)).map { line($0, catalog) }, source: "history-\(next)") } catch {
                throw BenchmarkError("\(error)")
            }
            next += count
            // Keep the backlog small, as a live daemon would see it.
            try waitForBacklog(atMost: 8)
        }
        try waitForBacklog(atMost: 0)
    }

    /// Median over three starts of `entitlementd` on `container` (durable, as shipped) of the wall
    /// time to its first published snapshot, the CPU time it used until then, and its resident
    /// memory right after.
    static func measure(container: String, catalogPath: String) throws(BenchmarkError) -> (milliseconds: Double, cpuMilliseconds: Double, memory: Double) {
        var times: [Double] = [], cpu: [Double] = [], memories: [Double] = []
        let reader = SnapshotReader(suiteName: DaemonBenchmarks.group, container: container)
        for _ in 0..<3 {
            let before = reader.refresh().snapshot?.generation ?? 0
            let start = MonotonicClock.now()
            let daemon = try DaemonBenchmarks.startDaemon(container: container, catalogPath: catalogPath, after: before)
            times.append(Double(MonotonicClock.now() - start) / 1e6)
            cpu.append(cpuMilliseconds(pid: daemon.pid))
            memories.append(try DaemonBenchmarks.residentMemory(pid: daemon.pid))
            daemon.stop(grace: 30)
        }
        return (median(times), median(cpu), median(memories))
    }

    /// User plus system CPU time of process `pid` so far (ms), from `/proc/PID/stat`; 0 when unreadable.
    static func cpuMilliseconds(pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func report(_ row: Row) {
        StandardStreams.writeError(
            "restart: \(row.shape), \(row.events) events: \(format(row.restartMilliseconds)) ms (CPU \(format(row.cpuMilliseconds)) ms), \(format(row.memoryMiB)) MiB\n")
    }

    static func table(_ rows: [Row], directory: String) -> String {
        var text = "entitlementd restart after a history (median of 3 starts; container in \(directory))\n"
        text += pad("shape", 30) + pad("events", 10, right: true) + pad("journal MiB", 13, right: true)
            + pad("restart ms", 12, right: true) + pad("CPU ms", 10, right: true) + pad("RSS MiB", 10, right: true) + "  target\n"
        for row in rows {
            text += pad(row.shape, 30) + pad(String(row.events), 10, right: true) + pad(format(row.journalMiB), 13, right: true)
                + pad(format(row.restartMilliseconds), 12, right: true) + pad(format(row.cpuMilliseconds), 10, right: true)
                + pad(format(row.memoryMiB), 10, right: true)
                + (row.target.isEmpty ? "" : "  " + row.target) + "\n"
        }
        return text
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
