import Broker
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation
import ServiceRuntime
import SharedDefaults
import TestSupport

/// The long form of the daemon fault tests: rounds that cycle through a disk that fills under the
/// daemon and empties again, the container deleted under it (a supervisor restarts it), and a
/// `kill -9` with a restart, each round acknowledging one new event and checking it is applied.
///
/// Every event is a new subscription expiring later than any before, so the published snapshot
/// shows the newest applied one. A round counts an event *unapplied* when it is acknowledged but
/// not published within 30 s of the fault clearing, and *lost* when a restarted daemon no longer
/// publishes it. Pass: nothing unapplied or lost, every removal stopped the daemon with exit 75
/// before a new daemon was started (so two daemons never serve one path; the report gives the
/// times, which should be well under a second).
/// Disk-full rounds need root (a small tmpfs is mounted inside the run's temporary directory and
/// unmounted on every path); without it they are skipped and the report says so.
struct FaultHarness {
    struct Options: Sendable {
        var rounds: Int
    }

    enum Fault: String, CaseIterable { case diskFull = "disk full", containerRemoved = "container removed", restart }

    struct Report {
        var rounds = 0
        var counts: [Fault: Int] = [:]
        var acknowledged = 0
        var unapplied = 0
        var lost = 0
        /// Disk-full rounds in which the daemon reported a failed step, by what failed (the
        /// journal append, the snapshot write, other).
        var failedSteps: [String: Int] = [:]
        /// Disk-full rounds in which `ingest` itself found no room (75, nothing acknowledged).
        var ingestRefused = 0
        /// Seconds from freeing the space to the event being published.
        var recoveries: [Double] = []
        /// Seconds from the container's removal to the daemon's exit.
        var exits: [Double] = []
        var secondWriters = 0
        var skipped: String?
        var notes: [String] = []
        var seconds = 0.0

        /// Exit times are reported, not judged: on a loaded machine scheduling alone can pass a
        /// second; a daemon still running 5 s after the removal counts as a second writer.
        var passed: Bool { rounds > 0 && unapplied == 0 && lost == 0 && secondWriters == 0 && notes.isEmpty }

        var text: String {
            let kinds = Fault.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
            var text = "faults: \(rounds) rounds in \(String(format: "%.1f", seconds)) s (\(kinds))\n"
            text += "  acknowledged events: \(acknowledged), unapplied: \(unapplied), lost across restarts: \(lost)\n"
            if let skipped {
                text += "  disk full: skipped (\(skipped))\n"
            } else {
                let steps = failedSteps.keys.sorted().map { "\($0) \(failedSteps[$0]!)" }.joined(separator: ", ")
                text += "  disk full: failed steps seen: \(steps.isEmpty ? "none" : steps); ingest refused (75): \(ingestRefused); "
                text += "published after space was freed in \(Self.summary(recoveries))\n"
            }
            text += "  container removed: daemon exited 75 in \(Self.summary(exits)); second writers: \(secondWriters)\n"
            for note in notes { text += "  problem: \(note)\n" }
            text += passed ? "  PASS\n" : "  FAIL\n"
            return text
        }

        /// Disk-full rounds that ran (none when they were skipped).
        var diskFullRounds: Int { skipped == nil ? counts[.diskFull] ?? 0 : 0 }

        static func summary(_ values: [Double]) -> String {
            guard !values.isEmpty else { return "n/a" }
            let sorted = values.sorted()
            return String(format: "p50 %.3f s, max %.3f s (%d)", sorted[sorted.count / 2], sorted.last!, sorted.count)
        }
    }

    let options: Options
    let catalogPath: String
    let catalog: Catalog
    let group: String

    func run() async throws -> Report {
        try await withTemporaryDirectory("entitlement-faults") { root in try await run(in: root) }
    }

    private func run(in root: String) async throws -> Report {
        var report = Report()
        let started = Date()
        var disk = root
        var mounted = false
        if geteuid() == 0 {
            disk = root + "/tmpfs"
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            mounted = mount("none", disk, "tmpfs", 0, "size=4m,mode=0700") == 0
            if !mounted { report.skipped = "mount tmpfs: \(String(cString: strerror(errno)))" }
        } else {
            report.skipped = "needs root to mount a small tmpfs"
        }
        defer {
            if mounted, umount2(disk, 0) != 0 { _ = umount2(disk, Int32(MNT_DETACH)) }
        }
        let layout = ContainerLayout(container: disk + "/container", group: group)
        print("faults: \(options.rounds) rounds, container \(layout.container)")
        var run = Run(harness: self, layout: layout, disk: disk)
        defer { run.daemon?.send(SIGKILL) }
        try await run.startDaemon(&report)
        let faults = report.skipped == nil ? Fault.allCases : [.containerRemoved, .restart]
        for round in 0..<options.rounds {
            let fault = faults[round % faults.count]
            report.counts[fault, default: 0] += 1
            switch fault {
            case .diskFull: try await run.diskFull(&report)
            case .containerRemoved: try await run.containerRemoved(&report)
            case .restart: try await run.restart(&report)
            }
            report.rounds += 1
            if report.rounds % 50 == 0 {
                print("faults: \(report.rounds) rounds, \(report.acknowledged) events acknowledged")
            }
        }
        if let daemon = run.daemon, await daemon.stop() != 0 {
            report.notes.append("the last daemon did not exit 0: \(daemon.standardError.suffix(300))")
        }
        run.daemon = nil
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// One run's moving parts: the daemon now serving, and the newest acknowledged event.
    private struct Run {
        let harness: FaultHarness
        let layout: ContainerLayout
        let disk: String
        var daemon: ChildProcess?
        var serial = 0
        /// Expiry (ms since 1970) of the newest event acknowledged in the current container.
        var newestExpiry: Double?
        let base = Date()

        var reader: SnapshotReader { SnapshotReader(suiteName: layout.group, container: layout.container) }

        /// Starts a daemon and waits until it is idle (its start-up publish recorded).
        mutating func startDaemon(_ report: inout Report) async throws {
            let daemon = try BuiltTools.start(
                "entitlementd", ["--container", layout.container, "--group", layout.group, "--catalog", harness.catalogPath])
            self.daemon = daemon
            let statePath = layout.statePath
            let reader = reader
            let idle = await ChildProcess.wait(timeout: .seconds(60)) {
                guard let published = reader.refresh().snapshot?.generation, let state = try? BrokerState.load(path: statePath) else { return false }
                return state.generation >= published && daemon.standardError.contains("published generation")
            }
            if !idle { report.notes.append("a daemon did not start: \(daemon.standardError.suffix(300))") }
        }

        /// Whether the published snapshot shows the event expiring at `expiry`, within `timeout`,
        /// and the daemon has recorded it (so it is idle again).
        func published(_ expiry: Double, timeout: Duration = .seconds(30)) async -> Bool {
            let reader = reader
            let statePath = layout.statePath
            return await ChildProcess.wait(timeout: timeout) {
                guard let snapshot = reader.refresh().snapshot, let shown = snapshot.status(of: "plus").expiresAt,
                      abs(shown.timeIntervalSince1970 * 1000 - expiry) < 1, let state = try? BrokerState.load(path: statePath)
                else { return false }
                return state.generation >= snapshot.generation
            }
        }

        /// Queues a new subscription expiring later than any before; returns its expiry, or nil
        /// (with the error) when `ingest` refused it.
        mutating func ingest() -> Result<Double, BrokerError> {
            serial += 1
            let id = "fault-\(serial)"
            let expiry = (base.timeIntervalSince1970 + 86_400) * 1000 + Double(serial)
            let product = harness.catalog.products.values.first { if case .autoRenewable = $0.kind { true } else { false } }?.id ?? ""
            let line = StoreTransaction(
                transactionId: id, originalTransactionId: id, bundleId: harness.catalog.bundleId, productId: product,
                purchaseDate: base, expiresDate: Date(timeIntervalSince1970: expiry / 1000), type: .autoRenewable,
                signedDate: base, environment: harness.catalog.environment
            ).jsonRepresentation.serialized
            do { _ = try IngestClient(layout: layout, catalog: harness.catalog).enqueue([line], source: id) } catch { return .failure(error) }
            return .success(expiry)
        }

        /// Acknowledges one event and checks that it is published.
        mutating func ingestAndCheck(_ report: inout Report) async {
            switch ingest() {
            case .success(let expiry):
                report.acknowledged += 1
                newestExpiry = expiry
                if await !published(expiry) { report.unapplied += 1 }
            case .failure(let error):
                report.notes.append("ingest failed: \(error)")
            }
        }

        /// Fills the disk but one page, acknowledges an event the daemon cannot apply, frees the
        /// space and times the recovery.
        mutating func diskFull(_ report: inout Report) async throws {
            guard let daemon else { return }
            let failuresBefore = daemon.standardError.components(separatedBy: " failed (attempt ").count
            let filler = try Self.fill(disk, leavingPages: 1)
            defer { try? FileManager.default.removeItem(atPath: filler) }
            let expiry: Double
            switch ingest() {
            case .success(let acknowledged):
                expiry = acknowledged
            case .failure:
                // No room even for the inbox file: ingest refused it (75), nothing acknowledged.
                report.ingestRefused += 1
                try FileManager.default.removeItem(atPath: filler)
                await ingestAndCheck(&report)
                return
            }
            report.acknowledged += 1
            newestExpiry = expiry
            let failed = await ChildProcess.wait(timeout: .seconds(10)) {
                daemon.standardError.components(separatedBy: " failed (attempt ").count > failuresBefore
            }
            if failed {
                let line = daemon.standardError.split(separator: "\n").last { $0.contains(" failed (attempt ") } ?? ""
                let file = line.contains("journal") ? "journal append" : line.contains(".plist") ? "snapshot write" : "other"
                report.failedSteps[file, default: 0] += 1
            }
            try FileManager.default.removeItem(atPath: filler)
            let freed = Date()
            if await published(expiry) {
                if failed { report.recoveries.append(Date().timeIntervalSince(freed)) }
            } else {
                report.unapplied += 1
            }
        }

        /// Removes the container under the daemon, times its exit, restarts it as a supervisor
        /// would and checks the new daemon serves the path.
        mutating func containerRemoved(_ report: inout Report) async throws {
            guard let daemon else { return }
            try FileManager.default.removeItem(atPath: layout.container)
            let removed = Date()
            let status = await daemon.waitForExit(timeout: .seconds(5))
            report.exits.append(Date().timeIntervalSince(removed))
            if status == nil {
                report.secondWriters += 1
                await daemon.stop(grace: .seconds(1))
            } else if status != 75 {
                report.notes.append("a daemon whose container was removed exited \(status!): \(daemon.standardError.suffix(300))")
            }
            newestExpiry = nil
            try await startDaemon(&report)
            await ingestAndCheck(&report)
        }

        /// `kill -9` and a restart: the newest event must still be published (it was journaled),
        /// and a new one is applied.
        mutating func restart(_ report: inout Report) async throws {
            if newestExpiry == nil { await ingestAndCheck(&report) }
            daemon?.send(SIGKILL)
            _ = await daemon?.waitForExit(timeout: .seconds(10))
            try await startDaemon(&report)
            if let newestExpiry, await !published(newestExpiry) { report.lost += 1 }
            await ingestAndCheck(&report)
        }

        /// Fills the file system at `directory` with a file, then gives back `pages` 4 KiB pages.
        static func fill(_ directory: String, leavingPages pages: Int) throws -> String {
            let path = directory + "/filler"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            defer { close(fd) }
            let page = [UInt8](repeating: 0x2E, count: 4096)
            var size = 0
            while true {
                let written = page.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { break }
                size += written
            }
            _ = ftruncate(fd, off_t(max(0, (size / 4096 - pages) * 4096)))
            return path
        }
    }
}
