import Broker
import CLISupport
import EntitlementCommands
import EntitlementModel
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import Synchronization

/// The crash-torture harness: the real daemon is `kill -9`ed at random instants (and restarted)
/// while events are ingested continuously and reader processes decode the shared file in a loop.
///
/// Pass criteria: zero torn or undecodable reads across all readers, generations never going
/// backwards, and every event whose ingest was acknowledged present in the journal (and nothing
/// left in the inbox or quarantined) once a final daemon has drained everything; the published
/// snapshot then reflects the newest acknowledged event.
struct TortureHarness {
    enum Writer: String, Sendable { case broker, foundation }

    struct Options: Sendable {
        var kills: Int
        var readers: Int
        var writer: Writer
        var seed: UInt64
    }

    struct Report {
        var writer: Writer
        var kills = 0
        var acknowledged = 0
        var lost = 0
        var reads = 0
        var decoded = 0
        var torn = 0
        var backwards = 0
        var firstRefusal: String?
        var notes: [String] = []
        var seconds = 0.0

        var passed: Bool { lost == 0 && torn == 0 && backwards == 0 && kills > 0 && notes.isEmpty }

        var text: String {
            var text = "torture (\(writer.rawValue) writer): \(kills) kills in \(String(format: "%.1f", seconds)) s\n"
            text += "  acknowledged events: \(acknowledged), lost after recovery: \(lost)\n"
            text += "  reads: \(reads), decoded generations: \(decoded), torn or undecodable: \(torn), backwards: \(backwards)\n"
            if let firstRefusal { text += "  first refused read: \(firstRefusal)\n" }
            for note in notes { text += "  problem: \(note)\n" }
            text += passed ? "  PASS\n" : "  FAIL\n"
            return text
        }

        var json: JSONValue {
            .object([
                "writer": .string(writer.rawValue), "kills": .int(Int64(kills)), "acknowledged": .int(Int64(acknowledged)),
                "lost": .int(Int64(lost)), "reads": .int(Int64(reads)), "decoded": .int(Int64(decoded)),
                "torn": .int(Int64(torn)), "backwards": .int(Int64(backwards)), "passed": .bool(passed),
                "seconds": .double(seconds),
            ])
        }
    }

    let options: Options
    let catalogPath: String
    let catalog: Catalog
    let group: String

    func run() async throws -> Report {
        let root = try DemoCommand.makeTemporaryDirectory(prefix: "entitlement-torture")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root + "/container", group: group)
        try? FileManager.default.createDirectory(atPath: layout.preferencesDirectory, withIntermediateDirectories: true)
        let started = Date()
        var report = Report(writer: options.writer)
        var readers: [ChildProcess] = []
        for _ in 0..<options.readers {
            readers.append(try ChildProcess(
                executable: "/proc/self/exe",
                arguments: ["read", "--until-stopped", "--container", layout.container, "--group", layout.group]))
        }
        var random = SplitMix64(seed: options.seed)
        StandardStreams.writeOut("torture: seed \(options.seed), \(options.kills) kills, \(options.readers) readers, container \(layout.container)\n")
        switch options.writer {
        case .broker: try await tortureBroker(layout: layout, random: &random, report: &report)
        case .foundation: try await tortureFoundation(layout: layout, random: &random, report: &report)
        }
        for reader in readers {
            reader.send(SIGTERM)
            guard let status = await reader.waitForExit(timeout: .seconds(10)) else {
                await reader.stop(grace: .seconds(1))
                report.notes.append("a reader did not stop")
                continue
            }
            guard let line = reader.standardOutput.split(separator: "\n").last,
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                report.notes.append("a reader exited \(status) without a summary: \(reader.standardError)")
                continue
            }
            report.reads += object["reads"] as? Int ?? 0
            report.decoded += object["decoded"] as? Int ?? 0
            report.torn += object["refused"] as? Int ?? 0
            report.backwards += object["backwards"] as? Int ?? 0
            if report.firstRefusal == nil { report.firstRefusal = object["firstRefusal"] as? String }
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    // MARK: - Broker

    private final class Acknowledged: Sendable {
        let ids = Mutex<[String]>([])
        let newestExpiry = Mutex<Double>(0)
    }

    private func daemonArguments(_ layout: ContainerLayout) -> [String] {
        ["entitlementd", "--container", layout.container, "--group", layout.group, "--catalog", catalogPath]
    }

    private func tortureBroker(layout: ContainerLayout, random: inout SplitMix64, report: inout Report) async throws {
        let acknowledged = Acknowledged()
        let client = IngestClient(layout: layout, catalog: catalog)
        let product = catalog.products.values.first { if case .autoRenewable = $0.kind { true } else { false } }?.id ?? ""
        let base = Date()
        // The ingester: one event per enqueue, each a new subscription expiring later than the last,
        // so every accepted event changes the published snapshot.
        let ingester = Task {
            var serial = 0
            while !Task.isCancelled {
                serial += 1
                let id = "torture-\(serial)"
                let expiry = (base.timeIntervalSince1970 + 3600) * 1000 + Double(serial)
                let line = StoreTransaction(
                    transactionId: id, originalTransactionId: id, bundleId: catalog.bundleId, productId: product,
                    purchaseDate: base, expiresDate: Date(timeIntervalSince1970: expiry / 1000), type: .autoRenewable,
                    signedDate: base, environment: catalog.environment
                ).jsonRepresentation.serialized
                do {
                    _ = try client.enqueue([line], source: id)
                    acknowledged.ids.withLock { $0.append(id) }
                    acknowledged.newestExpiry.withLock { $0 = max($0, expiry) }
                } catch {
                    StandardStreams.writeError("torture: ingest \(id) failed (not acknowledged): \(error)\n")
                }
                // Continuous but realistic: about 200 events a second, pausing while the daemon
                // has a backlog of more than 1,000 files (a flood only measures the disk).
                try? await Task.sleep(for: .milliseconds(5))
                while !Task.isCancelled, ((try? Inbox(directory: layout.inboxDirectory).pending().count) ?? 0) > 1000 {
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        for _ in 0..<options.kills {
            let daemon = try ChildProcess(executable: "/proc/self/exe", arguments: daemonArguments(layout))
            // Half the kills land anywhere from exec to serving (startup, replay, first publish);
            // the other half once the daemon is serving (draining, journaling, publishing).
            if random.next() % 2 == 0 {
                _ = await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("published generation") }
                // Long enough after the start-up publish to land inside drain steps too (each is a
                // journal fsync and a publish), not only before the first one commits.
                try? await Task.sleep(for: .microseconds(Int(random.next() % 200_000)))
            } else {
                try? await Task.sleep(for: .microseconds(Int(random.next() % 150_000)))
            }
            daemon.send(SIGKILL)
            // SIGKILL takes effect when a blocking system call returns (an fsync on a busy disk
            // can take seconds); only a daemon still there after that is a problem.
            if await daemon.waitForExit(timeout: .seconds(30)) == nil { report.notes.append("a killed daemon did not exit") }
            report.kills += 1
            if report.kills % 500 == 0 {
                StandardStreams.writeOut("torture: \(report.kills) kills, \(acknowledged.ids.withLock { $0.count }) events acknowledged\n")
            }
        }
        ingester.cancel()
        _ = await ingester.value

        // Recovery: a final daemon drains everything; then the evidence is read from disk.
        let daemon = try ChildProcess(executable: "/proc/self/exe", arguments: daemonArguments(layout))
        let inbox = Inbox(directory: layout.inboxDirectory)
        let drained = await ChildProcess.wait(timeout: .seconds(60)) { ((try? inbox.pending()) ?? ["?"]).isEmpty }
        let newest = acknowledged.newestExpiry.withLock { $0 }
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        let reflected = await ChildProcess.wait(timeout: .seconds(10)) {
            guard let expiry = reader.refresh().snapshot?.status(of: "plus").expiresAt else { return false }
            return abs(expiry.timeIntervalSince1970 * 1000 - newest) < 1
        }
        if await daemon.stop() != 0 { report.notes.append("the final daemon did not exit 0: \(daemon.standardError.suffix(300))") }
        if !drained { report.notes.append("the inbox was not drained within 60 s") }
        if !reflected { report.notes.append("the published snapshot does not reflect the newest acknowledged event") }
        let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: layout.rejectedDirectory)) ?? []
        if !quarantined.isEmpty { report.notes.append("\(quarantined.count) inbox files were quarantined") }

        let journal = JournalScan(Array((try? Data(contentsOf: URL(fileURLWithPath: layout.journalPath))) ?? Data()))
        if let damage = journal.damage.first { report.notes.append("the journal is damaged: \(damage)") }
        // Compaction rewrites events as checkpoint facts: ask the replayed facts, as a restart would.
        let facts = (try? JournalReplay.replay(journal.records, format: journal.format, path: layout.journalPath, catalog: catalog).facts) ?? FactStore()
        if journal.damage.isEmpty, (try? JournalReplay.replay(journal.records, format: journal.format, path: layout.journalPath, catalog: catalog)) == nil {
            report.notes.append("the journal does not replay")
        }
        let journaled = Set(facts.transactionsByID().keys)
        let ids = acknowledged.ids.withLock { $0 }
        report.acknowledged = ids.count
        report.lost = ids.filter { !journaled.contains($0) }.count
    }

    // MARK: - Foundation, for contrast

    private func tortureFoundation(layout: ContainerLayout, random: inout SplitMix64, report: inout Report) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = layout.preferencesDirectory
        environment["HOME"] = layout.container
        var acknowledged: Int64 = 0
        for _ in 0..<options.kills {
            let writer = try ChildProcess(
                executable: "/proc/self/exe", arguments: ["foundation-publish", "--count", "1000000", "--group", layout.group],
                environment: environment)
            // Kill it while it writes: after its first acknowledged write, at a random instant.
            _ = await ChildProcess.wait(timeout: .seconds(5)) { writer.standardOutput.contains("ack ") }
            try? await Task.sleep(for: .microseconds(Int(random.next() % 30_000)))
            writer.send(SIGKILL)
            _ = await writer.waitForExit(timeout: .seconds(10))
            report.kills += 1
            let acks = writer.standardOutput.split(separator: "\n").compactMap { $0.hasPrefix("ack ") ? Int64($0.dropFirst(4)) : nil }
            let lastAck = acks.last ?? 0
            report.acknowledged += acks.count
            // What survived: the generation now in the file. An acknowledged generation is lost
            // when the file holds less than the writer's last acknowledgement.
            let stored = SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot?.generation ?? 0
            if stored < lastAck { report.lost += Int(lastAck - stored) }
            acknowledged = lastAck
        }
        _ = acknowledged
    }
}

/// A small deterministic generator so a torture run can be replayed with `--seed`.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
