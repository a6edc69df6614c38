@testable import Broker
import Foundation
import Testing

@Suite("Journal and inbox", .timeLimit(.minutes(1)))
struct JournalAndInboxTests {
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "broker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test("Appended lines replay in order; a torn last line is dropped and cut off")
    func tornTail() throws {
        try withDirectory { dir in
            let path = dir + "/journal.jsonl"
            let journal = Journal(path: path)
            #expect(try journal.replay().isEmpty)
            try journal.append(["{\"a\":1}", "{\"b\":2}"])
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{\"torn\":".utf8))
            try handle.close()
            let reopened = Journal(path: path)
            #expect(try reopened.replay() == ["{\"a\":1}", "{\"b\":2}"])
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"a\":1}\n{\"b\":2}\n")
            try reopened.append(["{\"c\":3}"])
            #expect(try Journal(path: path).replay() == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
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

    static func line(_ serial: Int) -> String {
        let ms = 1_790_000_000_000.0 + Double(serial)
        return """
            {"transactionId":"c\(serial)","originalTransactionId":"c\(serial)","productId":"com.irenews.geko.plus.monthly","purchaseDate":\(ms),"expiresDate":\(ms + 3_600_000),"signedDate":\(ms),"type":"Auto-Renewable Subscription","environment":"Xcode","bundleId":"com.irenews.geko"}
            """
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
        #expect(try Journal(path: layout.journalPath).replay().count == total)
        // A second daemon replays the same journal and finds nothing new to do.
        let again = try DaemonCore(configuration: configuration)
        #expect(try !again.drainInbox())
    }
}
