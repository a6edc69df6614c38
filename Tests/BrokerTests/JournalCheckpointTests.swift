@testable import Broker
import Entitlements
import Foundation
import Testing

/// A journal begins with a checkpoint that says how many records it holds: a cut at any record
/// boundary inside it is damage, a cut after it is not (appended records stand alone).
@Suite("Journal checkpoint", .timeLimit(.minutes(1)))
struct JournalCheckpointTests {
    static let events = (1...3).map { #"{"transactionId":"e\#($0)","originalTransactionId":"e\#($0)","productId":"p","purchaseDate":1700000000000}"# }

    /// A compacted journal (as ``Journal/rewrite(_:)`` writes it) with `events` appended.
    static func journal() -> [UInt8] {
        var store = CheckpointFormatTests.richStore()
        store.compact()
        var bytes = JournalRecord.header
        for record in JournalCheckpoint.beginningWithCheckpoint(JournalReplay.checkpoint(of: store)) {
            JournalRecord.append(record.kind, record.payload, to: &bytes)
        }
        for line in events { JournalRecord.append(.event, Array(line.utf8), to: &bytes) }
        return bytes
    }

    @Test("A cut at every record boundary inside the checkpoint is damage; one after it is not")
    func everyBoundary() throws {
        let bytes = Self.journal()
        let whole = JournalScan(bytes)
        #expect(whole.damage.isEmpty && whole.tornTail == nil && whole.version == 2)
        let counted = try #require(whole.records.first.flatMap { JournalCheckpoint.count($0.payload) })
        let checkpointEnd = whole.records[counted].offset + JournalRecord.encode(whole.records[counted].kind, whole.records[counted].payload).count
        #expect(whole.records[counted].kind == .summary)
        let boundaries = [JournalRecord.header.count] + whole.records.map { $0.offset + JournalRecord.encode($0.kind, $0.payload).count }
        for boundary in boundaries {
            let scan = JournalScan(Array(bytes.prefix(boundary)))
            #expect(scan.tornTail == nil)
            if boundary < checkpointEnd {
                #expect(scan.damage.count == 1 && scan.damage[0].problem.contains("cut short"), "cut at \(boundary): \(scan.damage)")
            } else {
                #expect(scan.damage.isEmpty, "cut at \(boundary) (after the checkpoint): \(scan.damage)")
            }
        }
    }

    @Test("Opening a journal cut inside its checkpoint throws one line naming it, as for a damaged record")
    func openRefusesCut() throws {
        let bytes = Self.journal()
        let summary = try #require(JournalScan(bytes).records.first { $0.kind == .summary })
        let directory = NSTemporaryDirectory() + "journal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/journal.jsonl"
        let cut = Array(bytes.prefix(summary.offset))
        try Data(cut).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try Journal(path: path).open(inbox: JournalFramingTests.inbox(path, []))
        } throws: { error in
            (error as? BrokerError)?.exitCode == 65 && !"\(error)".contains("\n") && "\(error)".hasPrefix("\(path): record ")
                && "\(error)".contains("cut short inside the checkpoint")
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == cut, "nothing was cut or rewritten")
    }

    @Test("A start record out of place or unreadable, or none, is damage; a version 1 journal is read as it was")
    func startRecordRules() {
        let start = JournalRecord.encode(.checkpointStart, JournalCheckpoint.payload(count: 0))
        let event = JournalRecord.encode(.event, Array(Self.events[0].utf8))
        #expect(JournalScan(JournalRecord.header + start + event).damage.isEmpty)
        #expect(JournalScan(JournalRecord.header + event).damage.map(\.problem) == ["the journal does not begin with a checkpoint start"])
        #expect(JournalScan(JournalRecord.header + start + event + start).damage.map(\.index) == [2])
        #expect(JournalScan(JournalRecord.header + JournalRecord.encode(.checkpointStart, Array("x".utf8))).damage.map(\.problem) == ["unreadable checkpoint start"])
        #expect(JournalScan(JournalRecord.header).damage.first?.problem.contains("cut short") == true)
        let version1 = JournalScan(JournalRecord.headerVersion1 + event)
        #expect(version1.version == 1 && version1.damage.isEmpty && version1.records.count == 1)
        #expect(JournalScan(JournalRecord.headerVersion1).damage.isEmpty)
    }
}
