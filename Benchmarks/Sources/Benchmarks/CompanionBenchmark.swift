import EntitlementDefaults
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The companion link as a user waits on it: `entitlementctl ingest --wait` of one purchase on
/// the phone until the watch's `widget-renderer --follow` prints the unlocked entry, and the
/// watch's catch-up after a long absence.
///
/// Two real durable `entitlementd`s, each on its own container, paired with a key from
/// `entitlementctl pair`: the watch listens on 127.0.0.1 (port 0, read back from its log), the
/// phone connects. A round is the purchase row's (``PurchaseBenchmark``): a new monthly purchase
/// ingested on the phone, the clock stopped when the watch's follower prints a line of a newer
/// generation whose first entry is unlocked; a refund (not timed) locks it again. The floor,
/// from the same run: a raw TCP one-way hop on loopback (``TCPPingPong``) plus the raw durable
/// propagation floor on each side (the durable row's floor, twice).
///
/// Catch-up: the watch's daemon is stopped, `catchUpEvents` purchases are ingested on the phone
/// (every one expired but the last, so the watch unlocks only once it applied them all, in
/// order), and the watch's daemon is started again on the same port. Timed from the watch's
/// authenticated session (its `companion-status.json` says connected: the phone's reconnect
/// back-off is not the link's speed) until the watch's follower prints the unlocked entry.
struct CompanionBenchmark {
    var rounds: Int
    var catchUpEvents: Int

    struct Outcome {
        /// Phone's `ingest --wait` spawned → the watch's follower's unlocked line read (µs).
        var latency: LatencySummary?
        /// Raw TCP one-way hop on loopback (µs).
        var tcpOneWay: LatencySummary?
        var rounds = 0
        /// Watch session authenticated → the watch's follower shows the last of the events (s).
        var catchUpSeconds: Double?
        /// Watch daemon spawned → its session authenticated (s): start-up and the phone's back-off.
        var reconnectSeconds: Double?
        var catchUpEvents = 0
        var catchUpEventsPerSecond: Double? { catchUpSeconds.map { Double(catchUpEvents) / $0 } }
    }

    func run(root: String, catalogPath: String, tcpRounds: Int) throws(BenchmarkError) -> Outcome {
        var outcome = Outcome()
        outcome.tcpOneWay = LatencySummary(microseconds: try TCPPingPong.measure(rounds: tcpRounds))
        let phone = root + "/phone", watch = root + "/watch", key = root + "/pairing-key"
        try Workspace.makeDirectories(phone)
        try Workspace.makeDirectories(watch)
        let ctl = PackageTool("entitlementctl")
        guard try ctl.start(["pair", "--out", key], logPath: root + "/pair.log").waitForExit() == 0 else {
            throw BenchmarkError("entitlementctl pair failed (see \(root)/pair.log)")
        }
        var watchDaemon = try DaemonBenchmarks.startDaemon(
            container: watch, catalogPath: catalogPath, extra: ["--companion-listen", "127.0.0.1:0", "--pairing-key", key])
        defer { watchDaemon.stop() }
        let port = try Self.listeningPort(log: watch + "/entitlementd.log")
        let phoneDaemon = try DaemonBenchmarks.startDaemon(
            container: phone, catalogPath: catalogPath, extra: ["--companion-connect", "127.0.0.1:\(port)", "--pairing-key", key])
        defer { phoneDaemon.stop() }
        try Self.waitConnected(container: watch, deadline: MonotonicClock.now() + 60_000_000_000)

        let output = try ReportPipe()
        let follower = try PackageTool("widget-renderer").start(
            ["--container", watch, "--catalog", catalogPath, "--follow", "--format", "json", "--family", "systemSmall"],
            logPath: watch + "/widget-renderer.log", standardOutput: output.writeEnd)
        defer { follower.stop() }
        guard let first = PurchaseBenchmark.nextLine(output, after: -1, locked: nil, deadline: MonotonicClock.now() + 60_000_000_000) else {
            throw BenchmarkError("the watch's widget-renderer --follow printed nothing (see \(watch)/widget-renderer.log)")
        }
        var generation = first.generation
        let now = Date()
        let expires = now.addingTimeInterval(30 * 86_400)
        let purchase = root + "/purchase.json", refund = root + "/refund.json"
        func ingest(_ file: String) throws(BenchmarkError) -> SpawnedProcess {
            try ctl.start(["ingest", "--wait", file, "--container", phone, "--catalog", catalogPath], logPath: phone + "/ingest.log")
        }
        var latencies: [Double] = []
        let warmup = min(5, rounds)
        for round in 0..<(rounds + warmup) {
            let id = "companion-\(getpid())-\(round)"
            let purchased = now.addingTimeInterval(Double(round) - 3_600)
            try PurchaseBenchmark.write(IngestBenchmark.transactionLine(id: id, purchased: purchased, expires: expires), to: purchase)
            try PurchaseBenchmark.write(
                IngestBenchmark.transactionLine(id: id, purchased: purchased, expires: expires, revoked: purchased.addingTimeInterval(60)), to: refund)
            let start = MonotonicClock.now()
            let child = try ingest(purchase)
            guard let (unlocked, end) = PurchaseBenchmark.nextLine(output, after: generation, locked: false, deadline: start + 30_000_000_000) else {
                child.stop()
                throw BenchmarkError("round \(round): the watch never printed an unlocked entry (see \(root)/*/*.log)")
            }
            guard child.waitForExit() == 0 else { throw BenchmarkError("round \(round): entitlementctl ingest --wait failed (see \(phone)/ingest.log)") }
            generation = unlocked
            if round >= warmup { latencies.append(Double(end - start) / 1000) }
            let relock = try ingest(refund)
            guard let (locked, _) = PurchaseBenchmark.nextLine(output, after: generation, locked: true, deadline: MonotonicClock.now() + 30_000_000_000),
                relock.waitForExit() == 0
            else { throw BenchmarkError("round \(round): the refund did not lock the watch's widget again (see \(root)/*/*.log)") }
            generation = locked
        }
        outcome.latency = LatencySummary(microseconds: latencies)
        outcome.rounds = latencies.count

        guard catchUpEvents > 0 else { return outcome }
        watchDaemon.stop()
        // Every purchase expired long ago but the last: the watch unlocks once it applied them all.
        var lines: [String] = []
        lines.reserveCapacity(catchUpEvents)
        for index in 0..<catchUpEvents {
            let id = "catch-up-\(getpid())-\(index)"
            let last = index == catchUpEvents - 1
            let purchased = last ? now.addingTimeInterval(-60) : now.addingTimeInterval(-90 * 86_400 + Double(index))
            lines.append(IngestBenchmark.transactionLine(id: id, purchased: purchased, expires: last ? expires : purchased.addingTimeInterval(30 * 86_400)))
        }
        let backlog = root + "/backlog.jsonl"
        guard (try? Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: backlog))) != nil else {
            throw BenchmarkError("write \(backlog)")
        }
        guard try ingest(backlog).waitForExit() == 0 else { throw BenchmarkError("catch-up: ingest of the backlog failed (see \(phone)/ingest.log)") }
        unlink(ContainerLayoutPaths.status(watch))
        let spawned = MonotonicClock.now()
        watchDaemon = try PackageTool("entitlementd").start(
            ["--container", watch, "--catalog", catalogPath, "--companion-listen", "127.0.0.1:\(port)", "--pairing-key", key],
            logPath: watch + "/entitlementd.log")
        let connected = try Self.waitConnected(container: watch, deadline: spawned + 60_000_000_000)
        guard let (_, end) = PurchaseBenchmark.nextLine(output, after: generation, locked: false, deadline: connected + 300_000_000_000) else {
            throw BenchmarkError("catch-up: the watch never showed the last of \(catchUpEvents) events (see \(watch)/entitlementd.log)")
        }
        outcome.reconnectSeconds = Double(connected - spawned) / 1e9
        outcome.catchUpSeconds = Double(end - connected) / 1e9
        outcome.catchUpEvents = catchUpEvents
        return outcome
    }

    /// The port in the watch's `companion: listening on HOST:PORT` log line.
    static func listeningPort(log: String) throws(BenchmarkError) -> Int {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last(where: { $0.contains("companion: listening on ") }),
            let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { throw BenchmarkError("no 'companion: listening on' line in \(log)") }
        return port
    }

    /// Polls `container`'s companion status until it says connected; returns when it was seen.
    @discardableResult
    static func waitConnected(container: String, deadline: UInt64) throws(BenchmarkError) -> UInt64 {
        let path = ContainerLayoutPaths.status(container)
        while MonotonicClock.now() < deadline {
            if let data = FileManager.default.contents(atPath: path),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], object["connected"] as? Bool == true
            {
                return MonotonicClock.now()
            }
            usleep(500)
        }
        throw BenchmarkError("the companion link in \(container) did not connect (see its entitlementd.log)")
    }
}

/// Where the daemon keeps the link's status (`entitlementctl companion` reads it): the contract's path.
enum ContainerLayoutPaths {
    static func status(_ container: String) -> String { container + "/Library/Broker/companion-status.json" }
}
