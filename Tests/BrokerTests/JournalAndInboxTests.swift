@testable import Broker
import EntitlementDefaults
import Entitlements
import Foundation
import Synchronization
import Testing

@Suite("Journal and inbox", .timeLimit(.minutes(1)))
struct JournalAndInboxTests {
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "broker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// The event lines of the journal at `path`, oldest first.
    static func eventLines(_ path: String) throws -> [String] {
        let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(scan.damage.isEmpty && scan.tornTail == nil)
        return scan.records.filter { $0.kind == .event }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    @Test("Appended lines replay in order; a torn last record whose event is still queued is cut off quietly")
    func tornTail() throws {
        try withDirectory { dir in
            let path = dir + "/journal.jsonl"
            let journal = Journal(path: path)
            #expect(try journal.open(inbox: Inbox(directory: dir + "/inbox")).records.isEmpty)
            try journal.append(["{\"a\":1}", "{\"b\":2}"])
            let intact = try Data(contentsOf: URL(fileURLWithPath: path))
            let record = JournalRecord.encode(.event, Array("{\"torn\":1}".utf8))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(record.prefix(record.count - 4)))
            try handle.close()
            let reopened = Journal(path: path)
            let inbox = Inbox(directory: dir + "/inbox")
            _ = try inbox.enqueue(["{\"torn\":1}"])
            let contents = try reopened.open(inbox: inbox)
            #expect(contents.cutTornTail)
            #expect(contents.records.first?.kind == .checkpointStart, "a new journal begins with an (empty) checkpoint")
            #expect(contents.records.filter { $0.kind == .event }.map { String(decoding: $0.payload, as: UTF8.self) } == ["{\"a\":1}", "{\"b\":2}"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == intact)
            try reopened.append(["{\"c\":3}"])
            #expect(try Self.eventLines(path) == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
        }
    }

    @Test("Inbox files are written whole, listed oldest first, and removed")
    func inboxOrder() throws {
        try withDirectory { dir in
            let inbox = Inbox(directory: dir + "/inbox")
            let first = try inbox.enqueue(["one"])
            let second = try inbox.enqueue(["two", "three"])
            #expect(try inbox.pending() == [first, second])
            #expect(try inbox.read(second) == ["two", "three"])
            let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/inbox/" + first)
            #expect((attributes[.posixPermissions] as? Int) == 0o640)
            try inbox.remove(first)
            try inbox.remove(first)  // already gone: fine
            #expect(try inbox.pending() == [second])
            #expect(!inbox.contains(first))
        }
    }

    @Test("The inbox refuses a symlink and a FIFO instead of following or blocking")
    func inboxRefusesSpecialFiles() throws {
        try withDirectory { dir in
            let inbox = Inbox(directory: dir + "/inbox")
            try inbox.prepare()
            try "{}\n".write(toFile: dir + "/target", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: dir + "/inbox/1-link.events", withDestinationPath: dir + "/target")
            #expect(mkfifo(dir + "/inbox/2-fifo.events", 0o600) == 0)
            for name in ["1-link.events", "2-fifo.events"] {
                #expect(throws: BrokerError.self) { try inbox.read(name) }
            }
        }
    }

    @Test("Broker state round-trips and a corrupt file is an error, not a reset")
    func state() throws {
        try withDirectory { dir in
            let path = dir + "/state.json"
            #expect(try BrokerState.load(path: path) == BrokerState())
            let state = BrokerState(generation: 42, issuedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
            try state.save(path: path, durable: true)
            #expect(try BrokerState.load(path: path) == state)
            try "{\"generation\": -1}".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: BrokerError.self) { try BrokerState.load(path: path) }
        }
    }
}

@Suite("Daemon core", .timeLimit(.minutes(1)))
struct DaemonCoreTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Shared/Catalog.json"

    static func line(_ serial: Int, signedLater: Double = 0) -> String {
        let ms = 1_790_000_000_000.0 + Double(serial)
        return """
            {"transactionId":"c\(serial)","originalTransactionId":"c\(serial)","productId":"com.irenews.geko.plus.monthly","purchaseDate":\(ms),"expiresDate":\(ms + 3_600_000),"signedDate":\(ms + signedLater),"type":"Auto-Renewable Subscription","environment":"Xcode","bundleId":"com.irenews.geko"}
            """
    }

    /// How many transactions the journal holds, replayed as a restart would (compaction may have
    /// turned event records into checkpoint facts).
    static func journaledTransactions(_ layout: ContainerLayout) throws -> Int {
        let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: layout.journalPath))))
        #expect(scan.damage.isEmpty && scan.tornTail == nil)
        let catalog = try Catalog.load(path: Self.catalog)
        return try JournalReplay.replay(scan.records, format: scan.format, path: layout.journalPath, catalog: catalog).facts.transactionCount
    }

    /// The daemon's log lines, collected from its `log` closure.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        var accepted: [String] { all.filter { $0.hasPrefix("accepted ") } }
    }

    /// A daemon core on a fresh container; `durable` as the real daemon runs (every journal
    /// append and publish fsynced), not only atomic.
    static func withCore(durable: Bool = false, _ body: (Inbox, ContainerLayout, LogLines, () throws -> DaemonCore) throws -> Void) throws {
        let root = NSTemporaryDirectory() + "core-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root, group: "group.core")
        let log = LogLines()
        let configuration = DaemonConfiguration(layout: layout, catalogPath: Self.catalog, durable: durable, log: { log.append($0) })
        try body(Inbox(directory: layout.inboxDirectory), layout, log) { try DaemonCore(configuration: configuration) }
    }

    @Test("Versions of one transaction within a step: a newer one is new, a repeat or an older one is not, and the newest wins")
    func versionsWithinOneStep() throws {
        try Self.withCore { inbox, layout, log, makeCore in
            _ = try inbox.enqueue([Self.line(1), Self.line(1, signedLater: 5000), Self.line(1), Self.line(2)])
            _ = try inbox.enqueue([Self.line(2), Self.line(1, signedLater: 1000)])
            let core = try makeCore()
            #expect(try core.drainInbox())
            #expect(log.accepted == ["accepted 6 events from 2 inbox files (3 new, 3 already known)"])
            #expect(try JournalAndInboxTests.eventLines(layout.journalPath) == [Self.line(1), Self.line(1, signedLater: 5000), Self.line(2)])
            // The same lines again, in a later step, are all known.
            _ = try inbox.enqueue([Self.line(1, signedLater: 5000), Self.line(2)])
            #expect(try !core.drainInbox())
            #expect(log.accepted.last == "accepted 2 events from 1 inbox files (0 new, 2 already known)")
        }
    }

    @Test("A step ends after the file that brings it to eventsPerCommit events, and the next step takes the rest")
    func stepsBoundedByEvents() throws {
        try Self.withCore { inbox, layout, log, makeCore in
            let perFile = DaemonCore.eventsPerCommit * 3 / 4
            for file in 0..<3 { _ = try inbox.enqueue((0..<perFile).map { Self.line(file * perFile + $0) }) }
            let core = try makeCore()
            #expect(try core.drainInbox())
            #expect(log.accepted == [
                "accepted \(2 * perFile) events from 2 inbox files (\(2 * perFile) new, 0 already known)",
                "accepted \(perFile) events from 1 inbox files (\(perFile) new, 0 already known)",
            ])
            #expect(try inbox.pending().isEmpty)
            #expect(try Self.journaledTransactions(layout) == 3 * perFile)
        }
    }

    @Test("A backlog larger than one commit is drained in bounded steps, all journaled, and replay is idempotent")
    func backlogInSteps() throws {
        let root = NSTemporaryDirectory() + "core-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root, group: "group.core")
        let inbox = Inbox(directory: layout.inboxDirectory)
        let total = DaemonCore.filesPerCommit * 2 + 10
        for serial in 0..<total { _ = try inbox.enqueue([Self.line(serial)]) }
        _ = try inbox.enqueue([Self.line(0)])  // a duplicate
        let configuration = DaemonConfiguration(layout: layout, catalogPath: Self.catalog, durable: false, log: { _ in })
        let core = try DaemonCore(configuration: configuration)
        #expect(try core.drainInbox())
        #expect(try inbox.pending().isEmpty)
        #expect(try Self.journaledTransactions(layout) == total)
        // A second daemon replays the same journal and finds nothing new to do.
        let again = try DaemonCore(configuration: configuration)
        #expect(try !again.drainInbox())
    }
}
