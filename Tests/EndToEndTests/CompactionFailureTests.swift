import Broker
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// A compaction the disk has no room for: compaction only saves space and start-up time, so the
/// daemon serves without it (drains, journals what it can, publishes), logs the failure once and
/// tries it again with back-off until space is freed.
@Suite("Compaction failure", .timeLimit(.minutes(3)))
struct CompactionFailureTests {
    /// Lifetime purchases enough to fill more than the compaction floor (1 MiB) of journal.
    static func purchases(count: Int = 4000) -> [String] {
        let bought = Date().addingTimeInterval(-86_400)
        return (1...count).map { serial in
            Fixture.transaction(id: "88\(serial)", product: "com.irenews.geko.plus.lifetime", purchased: bought, expires: nil)
        }
    }

    /// The journal of `lines`: an empty checkpoint and framed event records appended after it
    /// (as the daemon appends them), or one raw line per event (a journal written before records
    /// were framed, which takes no append before it is rewritten).
    static func journal(of lines: [String], framed: Bool) -> [UInt8] {
        guard framed else { return Array((lines.joined(separator: "\n") + "\n").utf8) }
        var bytes = JournalRecord.header
        JournalRecord.append(.checkpointStart, Array("0".utf8), to: &bytes)
        for line in lines { JournalRecord.append(.event, line.utf8, to: &bytes) }
        return bytes
    }

    static func compactionFailures(_ daemon: ChildProcess) -> Int {
        daemon.standardError.split(separator: "\n").filter { $0.contains("journal compaction failed") }.count
    }

    @Test("A start-up compaction that fails for ENOSPC leaves the daemon serving; it is logged once and done once space is freed",
          .enabled(if: isRoot, "needs root to mount a small tmpfs"),
          arguments: [true, false])
    func startupCompactionOnFullDisk(framed: Bool) async throws {
        try await Fixture.with { outer in
            try await withTmpfs(in: outer.root, kibibytes: 4096) { disk in
                let fixture = Fixture(root: disk)
                // A first daemon makes the container; its journal is then replaced by a large one.
                let first = try await DaemonFaultTests.startIdleDaemon(fixture)
                #expect(await first.stop() == 0)
                let journal = Self.journal(of: Self.purchases(), framed: framed)
                #expect(journal.count > 1 << 20, "the journal must be larger than the compaction floor")
                try Data(journal).write(to: URL(fileURLWithPath: fixture.layout.journalPath))
                // Room for a publish, an inbox file and an append, not for the checkpoint.
                let filler = try fillFileSystem(in: disk, leavingPages: 16)

                let daemon = try BuiltTools.start("entitlementd", fixture.common)
                defer { daemon.send(SIGKILL) }
                let serving = await ChildProcess.wait(timeout: .seconds(30)) {
                    fixture.snapshot()?.status(of: "plus").state == .purchased || !daemon.isRunning
                }
                #expect(serving && daemon.isRunning, "status \(String(describing: daemon.terminationStatus)): \(daemon.standardError)")
                #expect(Self.compactionFailures(daemon) == 1, "\(daemon.standardError)")
                #expect(daemon.standardError.contains("ENOSPC"), "\(daemon.standardError)")

                let during = try await fixture.run(
                    "entitlementctl", ["ingest", "--wait", "--timeout", "5", "-"] + fixture.common,
                    input: DaemonFaultTests.lifetime("8901") + "\n")
                if framed {
                    // The old journal still takes appends: the purchase is journaled and applied.
                    #expect(during.status == 0, "\(during.standardError) \(daemon.standardError)")
                } else {
                    // An unframed journal takes appends only once rewritten: the purchase waits, queued.
                    #expect(during.status == 75, "\(during.standardError) \(daemon.standardError)")
                }

                try FileManager.default.removeItem(atPath: filler)
                let compacted = await ChildProcess.wait(timeout: .seconds(90)) { daemon.standardError.contains("compacted the journal") }
                #expect(compacted, "\(daemon.standardError)")
                #expect(Self.compactionFailures(daemon) == 1, "\(daemon.standardError)")
                let after = try await fixture.run(
                    "entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: DaemonFaultTests.lifetime("8902") + "\n")
                #expect(after.status == 0, "\(after.standardError) \(daemon.standardError)")
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? ["?"]).isEmpty)
                #expect(await daemon.stop() == 0)

                // Nothing was lost: a restart replays every purchase, the two ingested included.
                let restarted = try BuiltTools.start("entitlementd", fixture.common)
                defer { restarted.send(SIGKILL) }
                #expect(await ChildProcess.wait(timeout: .seconds(30)) { restarted.standardError.contains("published generation") })
                #expect(restarted.standardError.contains("started: \(4000 + 2) journaled facts"), "\(restarted.standardError)")
                #expect(await restarted.stop() == 0)
            }
        }
    }
}
