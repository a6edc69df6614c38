import Broker
import Dispatch
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation
import PropertyList
import ServiceRuntime
import SharedDefaults
import Synchronization
import TestSupport

/// The crash-torture harness: the real daemon is `kill -9`ed at random instants (and restarted)
/// while events are ingested continuously and reader threads decode the shared file in a loop.
///
/// Pass criteria: zero torn or undecodable reads across all readers, generations never going
/// backwards, and every event whose ingest was acknowledged present in the journal (and nothing
/// left in the inbox or quarantined) once a final daemon has drained everything; the published
/// snapshot then reflects the newest acknowledged event.
///
/// The contrast writer (`inPlace`) rewrites the file in place, as Foundation's `UserDefaults`
/// does on Linux, so the readers must catch it.
struct TortureHarness {
    enum Writer: String, Sendable { case broker, inPlace = "in-place" }

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

    }

    let options: Options
    let catalogPath: String
    let catalog: Catalog
    let group: String

    func run() async throws -> Report {
        try await withTemporaryDirectory("entitlement-torture") { root in
            let layout = ContainerLayout(container: root + "/container", group: group)
            try FileManager.default.createDirectory(atPath: layout.preferencesDirectory, withIntermediateDirectories: true)
            let started = Date()
            var report = Report(writer: options.writer)
            let readers = StressReaders(layout: layout, count: options.readers)
            var random = SplitMix(seed: options.seed)
            print("torture: seed \(options.seed), \(options.kills) kills, \(options.readers) readers, container \(layout.container)")
            do {
                switch options.writer {
                case .broker: try await tortureBroker(layout: layout, random: &random, report: &report)
                case .inPlace: try await writeInPlace(layout: layout, readers: readers, report: &report)
                }
            } catch {
                _ = await readers.stop()
                throw error
            }
            for summary in await readers.stop() {
                report.reads += summary.reads
                report.decoded += summary.decoded
                report.torn += summary.refused
                report.backwards += summary.backwards
                if report.firstRefusal == nil { report.firstRefusal = summary.firstRefusal }
            }
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
    }

    // MARK: - Broker

    private final class Acknowledged: Sendable {
        let ids = Mutex<[String]>([])
        let newestExpiry = Mutex<Double>(0)
        let stopped = Atomic<Bool>(false)
        let finished = DispatchGroup()
    }

    /// The real daemon under `nice -n 10`: its hundreds of starts are heavy work that no test
    /// times, so the rest of the suite is scheduled first.
    private func startDaemon(_ layout: ContainerLayout) throws -> ChildProcess {
        let (executable, arguments) = BuiltTools.lowPriority(
            [BuiltTools.path("entitlementd"), "--container", layout.container, "--group", layout.group, "--catalog", catalogPath])
        return try ChildProcess(executable: executable, arguments: arguments, environment: BuiltTools.environment())
    }

    private func tortureBroker(layout: ContainerLayout, random: inout SplitMix, report: inout Report) async throws {
        let acknowledged = Acknowledged()
        let client = IngestClient(layout: layout, catalog: catalog)
        let product = catalog.products.values.first { if case .autoRenewable = $0.kind { true } else { false } }?.id ?? ""
        let base = Date()
        // The ingester: one event per enqueue, each a new subscription expiring later than the last,
        // so every accepted event changes the published snapshot. It runs on a thread of its own:
        // each enqueue blocks in fsync, which must not hold the concurrency pool the suite runs on.
        acknowledged.finished.enter()
        Thread.detachNewThread { [catalog] in
            defer { acknowledged.finished.leave() }
            var serial = 0
            while !acknowledged.stopped.load(ordering: .relaxed) {
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
                    print("torture: ingest \(id) failed (not acknowledged): \(error)")
                }
                // Continuous but realistic: about 200 events a second, pausing while the daemon
                // has a backlog of more than 1,000 files (a flood only measures the disk).
                Thread.sleep(forTimeInterval: 0.005)
                while !acknowledged.stopped.load(ordering: .relaxed),
                      ((try? Inbox(directory: layout.inboxDirectory).pending().count) ?? 0) > 1000 {
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
        }
        for _ in 0..<options.kills {
            let daemon = try startDaemon(layout)
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
                print("torture: \(report.kills) kills, \(acknowledged.ids.withLock { $0.count }) events acknowledged")
            }
        }
        acknowledged.stopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { continuation in acknowledged.finished.notify(queue: .global()) { continuation.resume() } }

        // Recovery: a final daemon drains everything; then the evidence is read from disk.
        let daemon = try startDaemon(layout)
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

    // MARK: - In place, for contrast

    /// Rewrites the shared file in place `kills` times, each a new generation, as a writer killed
    /// mid-write would leave it: truncated, then half written, until the readers have looked.
    private func writeInPlace(layout: ContainerLayout, readers: StressReaders, report: inout Report) async throws {
        let start = Date()
        for generation in 1...Int64(options.kills) {
            let snapshot = EntitlementSnapshot(
                generation: generation, issuedAt: start.addingTimeInterval(Double(generation) / 1000), nextTransition: nil,
                entitlements: [:])
            let bytes = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .binary)
            let descriptor = open(layout.sharedFilePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: layout.sharedFilePath]) }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count / 2) }
            close(descriptor)
            report.kills += 1
            let seen = readers.reads
            _ = try await eventually(timeout: .seconds(5), interval: .milliseconds(1)) { readers.reads > seen }
        }
    }
}
