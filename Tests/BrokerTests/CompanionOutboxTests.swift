@testable import Broker
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation
import Testing

/// ``CompanionOutbox``: what this side offers its companion stays bounded by what the peer lacks,
/// with its numbering, through compaction and reopening.
@Suite("Companion outbox", .timeLimit(.minutes(1)))
struct CompanionOutboxTests {
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let root = NSTemporaryDirectory() + "outbox-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(root + "/companion-outbox")
    }

    static func line(_ number: Int) -> String { "{\"n\":\(number)}" }

    static func eventsInFile(_ path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return JournalScan(bytes).records.filter { $0.kind == .event }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    @Test("Acknowledged lines leave the file once past the bound; numbering and appends survive a reopen")
    func compactsAcknowledgedLines() throws {
        try Self.withDirectory { path in
            let outbox = try CompanionOutbox(path: path, acknowledged: 0, compactionBound: 4, seed: { [] }, log: { _ in })
            try outbox.append((1...10).map(Self.line), durable: true)
            outbox.trim(through: 3)
            #expect(!outbox.wantsCompaction)
            outbox.trim(through: 8)
            #expect(outbox.wantsCompaction)
            try outbox.compact()
            #expect(try Self.eventsInFile(path) == [Self.line(9), Self.line(10)])
            #expect(outbox.firstInFile == 9 && outbox.count == 10)
            try outbox.append([Self.line(11)], durable: true)
            #expect(try Self.eventsInFile(path) == [9, 10, 11].map(Self.line))

            // Reopened (a restart) with the durable position: the same numbers, the same lines.
            let reopened = try CompanionOutbox(path: path, acknowledged: 8, compactionBound: 4, seed: { ["never"] }, log: { _ in })
            #expect(reopened.count == 11 && reopened.firstInFile == 9)
            #expect(reopened.lines(from: 9, limit: 10).map(\.0) == [9, 10, 11])
            #expect(reopened.lines(from: 10, limit: 1).map { String(decoding: $0.1, as: UTF8.self) } == [Self.line(10)])
            // A position older than the compaction (never written so, but a file could be lost)
            // offers from the first line the file holds, never a renumbered one.
            let stale = try CompanionOutbox(path: path, acknowledged: 2, compactionBound: 4, seed: { [] }, log: { _ in })
            #expect(stale.lines(from: 9, limit: 1).first?.0 == 9 && stale.count == 11)
            #expect(stale.lines(from: 5, limit: 1).isEmpty)
        }
    }

    @Test("A compaction leaves no temporary file and a second one drops the next acknowledged lines")
    func compactsAgain() throws {
        try Self.withDirectory { path in
            let outbox = try CompanionOutbox(path: path, acknowledged: 0, compactionBound: 2, seed: { [] }, log: { _ in })
            try outbox.append((1...6).map(Self.line), durable: false)
            outbox.trim(through: 2)
            try outbox.compact()
            outbox.trim(through: 5)
            try outbox.compact()
            #expect(try Self.eventsInFile(path) == [Self.line(6)])
            let directory = (path as NSString).deletingLastPathComponent
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["companion-outbox"])
            // Re-asking for an acknowledged line still in the file reads it back from the file.
            let reopened = try CompanionOutbox(path: path, acknowledged: 6, compactionBound: 2, seed: { [] }, log: { _ in })
            #expect(reopened.lines(from: 6, limit: 5).map(\.0) == [6])
        }
    }
}

/// A new outbox offers everything the journal holds: the facts of its checkpoint too.
@Suite("Companion outbox seed", .timeLimit(.minutes(1)))
struct CompanionSeedTests {
    @Test("A journal compacted before the link was configured offers its checkpoint's purchases")
    func offersCheckpointFacts() throws {
        let root = NSTemporaryDirectory() + "seed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root, group: "group.core")
        try FileManager.default.createDirectory(atPath: layout.brokerDirectory, withIntermediateDirectories: true)
        let catalog = try Catalog.load(path: DaemonCoreTests.catalog)
        let compacted = try #require(try EventDecoder.decode(line: DaemonCoreTests.line(1).utf8, signatures: catalog.signatures).first)
        var store = FactStore()
        store.insert(compacted)
        var bytes = JournalRecord.header
        for record in JournalReplay.checkpoint(of: store) { JournalRecord.append(record.kind, record.payload, to: &bytes) }
        JournalRecord.append(.event, DaemonCoreTests.line(2).utf8, to: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: layout.journalPath))

        var configuration = DaemonConfiguration(layout: layout, catalogPath: DaemonCoreTests.catalog, durable: false, log: { _ in })
        configuration.companion = CompanionConfiguration(endpoint: .listen("0"), pairingKeyPath: root + "/key")
        let core = try DaemonCore(configuration: configuration)
        let outbox = try #require(core.outbox)
        let offered = outbox.lines(from: 1, limit: 10).map { String(decoding: $0.1, as: UTF8.self) }
        try #require(offered.count == 2)
        // The checkpoint's purchase, as a line the peer reads back to the same fact.
        guard case .read(let events) = try KeptLine.reading(offered[0].utf8, signatures: catalog.signatures) else {
            Issue.record("the checkpoint's line does not read: \(offered[0])")
            return
        }
        #expect(events == [compacted])
        #expect(offered[1] == DaemonCoreTests.line(2))
    }
}
