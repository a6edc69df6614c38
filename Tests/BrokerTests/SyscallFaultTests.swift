#if ENABLE_MOCKING
@testable import Broker
import EntitlementDefaults
import Foundation
import SystemShims
import Testing

/// The inbox write, the journal append and the daemon's publish, with system calls failed on
/// purpose through SystemShims' seam (debug builds only): what is acknowledged is never lost,
/// what failed is not acknowledged, and every retry picks up where the failure left off.
@Suite("System call faults in the inbox, journal and publish", .timeLimit(.minutes(1)))
struct SyscallFaultTests {
    /// A monthly subscription bought a minute ago (serial 1) or renewed (serial 2, 3, ...), each
    /// reaching a month further: every one changes the published snapshot.
    private static func activeLine(_ serial: Int) -> String {
        let now = (Date().timeIntervalSince1970 * 1000).rounded()
        let month = 30.0 * 86_400_000
        return """
            {"transactionId":"f\(serial)","originalTransactionId":"f1","productId":"com.irenews.geko.plus.monthly","purchaseDate":\(now - 60_000),"expiresDate":\(now + Double(serial) * month),"signedDate":\(now - 60_000 + Double(serial)),"type":"Auto-Renewable Subscription","environment":"Xcode","bundleId":"com.irenews.geko"}
            """
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    private static func hiddenFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(".") }
    }

    // MARK: Inbox write

    @Test("An inbox write interrupted (EINTR) or cut short is completed: the queued file holds every line")
    func inboxWriteRetriesAndCompletes() throws {
        try DaemonCoreTests.withCore { inbox, _, _, _ in
            let faults = SyscallFaults()
            faults.inject(.fail(.interrupted), into: .write)
            faults.inject(.shortTransfer(maximumBytes: 16), into: .write, times: nil)
            let lines = [DaemonCoreTests.line(1), DaemonCoreTests.line(2)]
            let name = try faults.withFaults { () throws(BrokerError) in try inbox.enqueue(lines) }
            #expect(faults.count(of: .write) > 2)
            #expect(try inbox.pending() == [name])
            #expect(try inbox.read(name) == lines)
        }
    }

    @Test(
        "A failed inbox write (disk full, I/O error, failed fsync) is not acknowledged and leaves nothing queued",
        arguments: [(SyscallFaults.Call.write, Errno.noSpace), (.write, .ioError), (.fsync, .ioError)])
    func inboxWriteFailsClosed(call: SyscallFaults.Call, errno: Errno) throws {
        try DaemonCoreTests.withCore { inbox, _, _, _ in
            try inbox.prepare()
            let faults = SyscallFaults()
            faults.inject(.fail(errno), into: call)
            let error = #expect(throws: BrokerError.self) {
                try faults.withFaults { () throws(BrokerError) in _ = try inbox.enqueue([DaemonCoreTests.line(1)]) }
            }
            guard case .io(let path, "write", errno)? = error else {
                Issue.record("expected an inbox write error carrying \(errno), got \(String(describing: error))")
                return
            }
            #expect(error?.description == "\(path): write failed: \(errno)")
            #expect(error?.exitCode == 75)
            #expect(try inbox.pending().isEmpty)
            #expect(Self.hiddenFiles(inbox.directory).isEmpty, "no temporary file left behind")
        }
    }

    // MARK: Journal append

    @Test("A journal append interrupted (EINTR) or cut into short writes is completed, and the journal replays whole")
    func journalAppendRetriesAndCompletes() throws {
        try DaemonCoreTests.withCore { inbox, layout, _, makeCore in
            _ = try inbox.enqueue([DaemonCoreTests.line(1), DaemonCoreTests.line(2)])
            let core = try makeCore()
            let faults = SyscallFaults()
            faults.inject(.fail(.interrupted), into: .write, times: 2)
            faults.inject(.shortTransfer(maximumBytes: 7), into: .write, times: nil)
            #expect(try faults.withFaults { () throws(BrokerError) in try core.drainInbox() })
            #expect(try inbox.pending().isEmpty)
            #expect(try JournalAndInboxTests.eventLines(layout.journalPath) == [DaemonCoreTests.line(1), DaemonCoreTests.line(2)])
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 2)
        }
    }

    @Test(
        "A failed journal append is not acknowledged: nothing is applied or published, the events stay queued, a retry journals them",
        arguments: [Errno.noSpace, .ioError])
    func journalAppendFailsClosed(errno: Errno) throws {
        try DaemonCoreTests.withCore { inbox, layout, log, makeCore in
            _ = try inbox.enqueue([Self.activeLine(1)])
            let core = try makeCore()
            #expect(try core.drainInbox())
            let journalBefore = Self.fileSize(layout.journalPath)
            let sharedBefore = try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath))

            _ = try inbox.enqueue([Self.activeLine(2)])
            let faults = SyscallFaults()
            // A first write that gets only part of the record out, then the failure.
            faults.inject(.shortTransfer(maximumBytes: 10), into: .write)
            faults.inject(.fail(errno), into: .write)
            let error = #expect(throws: BrokerError.self) { try faults.withFaults { () throws(BrokerError) in try core.drainInbox() } }
            #expect(error?.description == "\(layout.journalPath): append failed: \(errno)")
            #expect(Self.fileSize(layout.journalPath) == journalBefore, "the partial record is cut off")
            #expect(try inbox.pending().count == 1, "the events are still queued")
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath)) == sharedBefore, "nothing new was published")
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 1)

            // The disk has room again: the same daemon retries and journals, publishes and dequeues.
            #expect(try core.drainInbox())
            #expect(try inbox.pending().isEmpty)
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 2)
            #expect(log.all.filter { $0.hasPrefix("published generation ") }.count == 2)
        }
    }

    // MARK: Publish

    @Test(
        "A failed publish leaves the old shared file and the events queued; the retry publishes them and only then dequeues",
        arguments: [(SyscallFaults.Call.renameat, Errno.ioError), (.write, .noSpace)])
    func failedPublishIsRetried(call: SyscallFaults.Call, errno: Errno) throws {
        try Self.withSecondStepQueued { core, inbox, layout, log, sharedBefore in
            let faults = SyscallFaults()
            // The journal append (one write) goes through; the publish's first `call` fails.
            faults.inject(.fail(errno), into: call, after: call == .write ? 1 : 0)
            let error = #expect(throws: BrokerError.self) { try faults.withFaults { () throws(BrokerError) in try core.drainInbox() } }
            #expect(error?.description == "\(layout.sharedFilePath): atomic replace failed: \(errno)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath)) == sharedBefore, "the old file, byte for byte")
            #expect(Self.hiddenFiles(layout.preferencesDirectory).filter { $0.contains(".tmp-") }.isEmpty, "no temporary file")
            #expect(try inbox.pending().count == 1, "not dequeued before a publish reflects it")
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 2, "journaled before the publish")

            _ = try core.drainInbox()
            #expect(try inbox.pending().isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath)) != sharedBefore)
            #expect(log.all.filter { $0.hasPrefix("published generation ") }.map { $0.prefix(22) } == ["published generation 1", "published generation 2"])
        }
    }

    // MARK: Journal fsync beside the publish

    @Test(
        "The journal's fsync runs beside the snapshot's write, but the snapshot is renamed into place only once the journal is on disk: after a failed journal fsync the retry writes the records again before it publishes"
    )
    func publishWaitsForTheJournal() throws {
        try Self.withSecondStepQueued(durable: true) { core, inbox, layout, log, sharedBefore in
            let faults = SyscallFaults()
            // The step's two fsyncs, in whichever order they run: the journal's (on its own
            // thread) and the new snapshot's temporary file's.
            faults.inject(.fail(.ioError), into: .fsync, times: 2)
            #expect(throws: BrokerError.self) { try faults.withFaults { () throws(BrokerError) in try core.drainInbox() } }
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath)) == sharedBefore, "nothing new was published")
            #expect(try inbox.pending().count == 1, "the events are still queued")
            #expect(Self.hiddenFiles(layout.preferencesDirectory).filter { $0.contains(".tmp-") }.isEmpty, "no temporary file")

            // The retry finds the journal's fsync failed, writes the step's records again
            // (durably), and only then publishes and dequeues.
            _ = try core.drainInbox()
            #expect(try inbox.pending().isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath)) != sharedBefore)
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 2)
            let lines = log.all
            let rewritten = lines.firstIndex { $0.hasPrefix("journal: ") && $0.contains("fsync failed") && $0.hasSuffix("writing its last 1 records again") }
            let published = lines.firstIndex { $0.hasPrefix("published generation 2") }
            #expect(rewritten != nil && published != nil && rewritten! < published!, "\(lines)")
        }
    }

    /// A core that has drained and published one event, with a second event queued: `body` gets
    /// the core, its inbox, layout and log, and the shared file's bytes as first published.
    private static func withSecondStepQueued(
        durable: Bool = false, _ body: (DaemonCore, Inbox, ContainerLayout, DaemonCoreTests.LogLines, Data) throws -> Void
    ) throws {
        try DaemonCoreTests.withCore(durable: durable) { inbox, layout, log, makeCore in
            _ = try inbox.enqueue([activeLine(1)])
            let core = try makeCore()
            #expect(try core.drainInbox())
            let sharedBefore = try Data(contentsOf: URL(fileURLWithPath: layout.sharedFilePath))
            _ = try inbox.enqueue([activeLine(2)])
            try body(core, inbox, layout, log, sharedBefore)
        }
    }
}
#endif
