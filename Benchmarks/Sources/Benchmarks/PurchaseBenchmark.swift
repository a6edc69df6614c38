import Broker
import EntitlementDefaults
import Entitlements
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import Synchronization

/// What a user waits on: `entitlementctl ingest --wait` of one purchase until a running
/// `widget-renderer --follow` prints the unlocked entry.
///
/// A real `entitlementd` (durable) and a real follower (`--format json --family systemSmall`,
/// its standard output read by the bench) run on one container. Each round writes a new monthly
/// purchase to a file (before the clock), spawns `entitlementctl ingest --wait FILE`, and stops
/// the clock when the follower prints a line of a newer generation whose first entry is
/// unlocked; the ingest must then exit 0. The purchase is then refunded (same transaction with
/// `revocationDate`, not timed) and the round waits for the locked line, so every timed round
/// goes from locked to unlocked.
///
/// Floor, per round in the same run: spawn → exit of a do-nothing process of the tools' runtime
/// (`entitlement-bench-floor`); the report adds the raw durable propagation floor of the same run.
/// The path in three parts: a watcher thread in the bench stamps the `IN_MOVED_TO` of the inbox
/// file and of the shared file (raw inotify), which splits a round into the tool's part (spawn →
/// inbox file seen), the daemon's (inbox file seen → published) and the follower's (published →
/// its line read).
struct PurchaseBenchmark {
    var rounds: Int

    struct Outcome {
        /// Spawn of `ingest --wait` → the follower's unlocked line read (µs).
        var latency: LatencySummary?
        /// Spawn → exit of the do-nothing process (µs).
        var spawnFloor: LatencySummary?
        /// Spawn of `ingest --wait` → its file renamed into the inbox (µs).
        var toolPart: LatencySummary?
        /// Inbox file renamed into the inbox → shared file renamed into place (µs).
        var daemonPart: LatencySummary?
        /// Shared file renamed into place → the follower's unlocked line read (µs).
        var followerPart: LatencySummary?
        var rounds = 0
    }

    func run(container: String, catalogPath: String) throws(BenchmarkError) -> Outcome {
        let daemon = try DaemonBenchmarks.startDaemon(container: container, catalogPath: catalogPath)
        defer { daemon.stop() }
        let layout = ContainerLayout(container: container, group: DaemonBenchmarks.group)
        let stamps = try MoveStamper(directories: [layout.inboxDirectory, layout.preferencesDirectory])
        defer { stamps.stop() }
        let output = try ReportPipe()
        let follower = try PackageTool("widget-renderer").start(
            ["--container", container, "--catalog", catalogPath, "--follow", "--format", "json", "--family", "systemSmall"],
            logPath: container + "/widget-renderer.log", standardOutput: output.writeEnd)
        defer { follower.stop() }
        var generation: Int64 = 0
        guard let (first, _) = Self.nextLine(output, after: -1, locked: nil, deadline: MonotonicClock.now() + 60_000_000_000) else {
            throw BenchmarkError("widget-renderer --follow printed nothing (see \(container)/widget-renderer.log)")
        }
        generation = first
        let ingest = PackageTool("entitlementctl")
        let floor = try DaemonBenchmarks.floorCommand()
        let (floorExecutable, floorArguments) = (floor.executable, floor.exit)
        var latencies: [Double] = [], spawns: [Double] = []
        var toolParts: [Double] = [], daemonParts: [Double] = [], followerParts: [Double] = []
        let now = Date()
        let warmup = min(5, rounds)
        for round in 0..<(rounds + warmup) {
            let id = "purchase-\(getpid())-\(round)"
            let purchased = now.addingTimeInterval(Double(round) - 3_600)
            let purchase = container + "/purchase.json", refund = container + "/refund.json"
            try Self.write(
                IngestBenchmark.transactionLine(id: id, purchased: purchased, expires: now.addingTimeInterval(30 * 86_400)), to: purchase)
            try Self.write(
                IngestBenchmark.transactionLine(
                    id: id, purchased: purchased, expires: now.addingTimeInterval(30 * 86_400), revoked: purchased.addingTimeInterval(60)),
                to: refund)

            let start = MonotonicClock.now()
            let child = try ingest.start(
                ["ingest", "--wait", purchase, "--container", container, "--catalog", catalogPath], logPath: container + "/ingest.log")
            guard let (unlocked, end) = Self.nextLine(output, after: generation, locked: false, deadline: start + 30_000_000_000) else {
                child.stop()
                throw BenchmarkError("round \(round): the follower never printed an unlocked entry (see \(container)/*.log)")
            }
            guard child.waitForExit() == 0 else { throw BenchmarkError("round \(round): entitlementctl ingest --wait failed (see \(container)/ingest.log)") }
            generation = unlocked
            if round >= warmup {
                latencies.append(Double(end - start) / 1000)
                if let (arrived, published) = stamps.moves(after: start, until: end) {
                    toolParts.append(Double(arrived - start) / 1000)
                    daemonParts.append(Double(published - arrived) / 1000)
                    followerParts.append(Double(end - published) / 1000)
                }
                let floorStart = MonotonicClock.now()
                try SpawnedProcess(executable: floorExecutable, arguments: floorArguments).waitForExit()
                spawns.append(Double(MonotonicClock.now() - floorStart) / 1000)
            }

            let relock = try ingest.start(
                ["ingest", "--wait", refund, "--container", container, "--catalog", catalogPath], logPath: container + "/ingest.log")
            guard let (locked, _) = Self.nextLine(output, after: generation, locked: true, deadline: MonotonicClock.now() + 30_000_000_000),
                relock.waitForExit() == 0
            else { throw BenchmarkError("round \(round): the refund did not lock the widget again (see \(container)/*.log)") }
            generation = locked
        }
        return Outcome(
            latency: LatencySummary(microseconds: latencies), spawnFloor: LatencySummary(microseconds: spawns),
            toolPart: LatencySummary(microseconds: toolParts), daemonPart: LatencySummary(microseconds: daemonParts),
            followerPart: LatencySummary(microseconds: followerParts), rounds: latencies.count)
    }

    /// Reads follower lines until one of a generation above `after` whose first entry's `locked`
    /// is `locked` (any, when `nil`); returns its generation and when the bench reached that line
    /// (monotonic ns, taken before the line is parsed: the bench's own JSON parsing of it is not
    /// the follower's time), or `nil` at the deadline.
    static func nextLine(_ output: ReportPipe, after: Int64, locked: Bool?, deadline: UInt64) -> (generation: Int64, readAt: UInt64)? {
        while let line = output.nextLine(deadline: deadline) {
            let readAt = MonotonicClock.now()
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let generation = (object["generation"] as? NSNumber)?.int64Value, generation > after
            else { continue }
            let entries = object["entries"] as? [[String: Any]]
            guard let locked else { return (generation, readAt) }
            if let isLocked = entries?.first?["locked"] as? Bool, isLocked == locked { return (generation, readAt) }
        }
        return nil
    }

    static func write(_ line: String, to path: String) throws(BenchmarkError) {
        guard (try? Data((line + "\n").utf8).write(to: URL(fileURLWithPath: path))) != nil else { throw BenchmarkError("write \(path)") }
    }
}

/// A thread blocked on a raw inotify descriptor that stamps (monotonic ns) every `IN_MOVED_TO`
/// in the first directory (the inbox) and the second (the shared file's).
final class MoveStamper: Sendable {
    private let inotify: Int32
    private let watches: [Int32]
    private let stamps = Mutex<[(directory: Int, nanoseconds: UInt64)]>([])
    private let stopped = Atomic<Bool>(false)

    init(directories: [String]) throws(BenchmarkError) {
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw .system("inotify_init1") }
        var watches: [Int32] = []
        for directory in directories {
            let watch = inotify_add_watch(inotify, directory, UInt32(IN_MOVED_TO))
            guard watch >= 0 else { throw .system("inotify_add_watch", path: directory) }
            watches.append(watch)
        }
        self.watches = watches
        let thread = Thread { [self] in self.readLoop() }
        thread.start()
    }

    private func readLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        let header = MemoryLayout<inotify_event>.size
        while !stopped.load(ordering: .relaxed) {
            let count = read(inotify, buffer.baseAddress, buffer.count)
            let now = MonotonicClock.now()
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                return
            }
            var offset = 0
            while offset + header <= count {
                let watch = buffer.load(fromByteOffset: offset, as: Int32.self)
                let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                if let index = watches.firstIndex(of: watch) { stamps.withLock { $0.append((index, now)) } }
                offset += header + length
            }
        }
    }

    /// The first inbox arrival after `start` and the first shared-file rename after it, both
    /// before `end` (monotonic ns), or `nil` when either is missing.
    func moves(after start: UInt64, until end: UInt64) -> (arrived: UInt64, published: UInt64)? {
        stamps.withLock { stamps in
            guard let arrival = stamps.first(where: { $0.directory == 0 && $0.nanoseconds >= start && $0.nanoseconds <= end }),
                let published = stamps.first(where: { $0.directory == 1 && $0.nanoseconds >= arrival.nanoseconds && $0.nanoseconds <= end })
            else { return nil }
            return (arrival.nanoseconds, published.nanoseconds)
        }
    }

    /// Ends the thread (closing the descriptor makes its blocked `read` fail) and releases it.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        for watch in watches { inotify_rm_watch(inotify, watch) }
        close(inotify)
    }
}
