@testable import Broker
import StoreKitFormats
import Foundation
import Testing

/// The journal's framing: every record checksummed, every kind of damage found and named, a torn
/// last record told apart from damage by the inbox, and unframed journals still read.
@Suite("Journal framing", .timeLimit(.minutes(1)))
struct JournalFramingTests {
    static let lines = (1...4).map { #"{"transactionId":"t\#($0)","originalTransactionId":"o\#($0)","productId":"p"}"# }

    /// A journal of version 1 holding `lines`: records alone, framed as in version 2 (whose
    /// checkpoint rules ``JournalCheckpointTests`` tests).
    static func framed(_ lines: [String] = lines) -> [UInt8] {
        lines.reduce(JournalRecord.headerVersion1) { $0 + JournalRecord.encode(.event, Array($1.utf8)) }
    }

    /// Offset of record `index` in `framed()`.
    static func offset(of index: Int) -> Int {
        JournalRecord.headerVersion1.count + lines.prefix(index).map { JournalRecord.encode(.event, Array($0.utf8)).count }.reduce(0, +)
    }

    /// A fresh inbox beside the journal at `path` holding `lines` in one file.
    static func inbox(_ path: String, _ lines: [String]) throws -> Inbox {
        let directory = path + ".inbox-\(UUID().uuidString.prefix(8))"
        let inbox = Inbox(directory: directory)
        try inbox.prepare()
        if !lines.isEmpty { _ = try inbox.enqueue(lines) }
        return inbox
    }

    private func withJournal(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "journal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/journal.jsonl"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try body(path)
    }

    @Test("CRC-32C matches the published check value")
    func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        #expect(CRC32C.checksum(Array("6789".utf8), continuing: CRC32C.checksum(Array("12345".utf8))) == 0xE306_9283)
    }

    @Test("CRC-32C eight bytes at a time equals the bit-by-bit definition on every length, alignment and split")
    func slicedMatchesDefinition() {
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var state: UInt32 = 12345
        let bytes = (0..<200).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        for length in 0...100 {
            for start in 0..<3 {
                let message = Array(bytes[start..<start + length])
                #expect(CRC32C.checksum(message) == bitwise(message), "length \(length) from \(start)")
                #expect(CRC32C.checksum(message[...]) == bitwise(message), "a slice, length \(length)")
                #expect(CRC32C.checksum(message.lazy.map { $0 }) == bitwise(message), "a non-contiguous sequence, length \(length)")
                let split = length / 3
                #expect(CRC32C.checksum(message[split...], continuing: CRC32C.checksum(message[..<split])) == bitwise(message))
            }
        }
    }

    @Test("An intact journal reads back every record")
    func intact() {
        let scan = JournalScan(Self.framed())
        #expect(scan.damage.isEmpty && scan.tornTail == nil)
        #expect(scan.records.map { String(decoding: $0.payload, as: UTF8.self) } == Self.lines)
        #expect(scan.records.map(\.offset) == (0..<4).map(Self.offset(of:)))
    }

    @Test("A flipped byte mid-file is a checksum mismatch at that record, and the records after it are kept")
    func flippedByte() {
        var bytes = Self.framed()
        bytes[Self.offset(of: 1) + 30] ^= 0x01
        let scan = JournalScan(bytes)
        #expect(scan.damage.map(\.index) == [1])
        #expect(scan.damage.first?.offset == Self.offset(of: 1))
        #expect(scan.damage.first?.problem == "checksum mismatch")
        #expect(scan.records.map(\.index) == [0, 2, 3])
    }

    @Test("A damaged newline merging two records is named, and both records survive")
    func mergedRecords() {
        var bytes = Self.framed()
        bytes[Self.offset(of: 2) - 1] = UInt8(ascii: "X")
        let scan = JournalScan(bytes)
        #expect(scan.damage.count == 1)
        #expect(scan.damage.first?.index == 1)
        #expect(scan.damage.first?.problem.contains("not a newline") == true)
        #expect(scan.damage.first?.intactPayload.map { String(decoding: $0, as: UTF8.self) } == Self.lines[1])
        #expect(scan.records.map { String(decoding: $0.payload, as: UTF8.self) } == [Self.lines[0], Self.lines[2], Self.lines[3]])
    }

    @Test("A damaged length digit is found, and reading resumes at the next record")
    func damagedLength() {
        var bytes = Self.framed()
        bytes[Self.offset(of: 2) + 2] = UInt8(ascii: "9")
        let scan = JournalScan(bytes)
        #expect(scan.damage.map(\.index) == [2])
        #expect(scan.records.map(\.index) == [0, 1, 3])
    }

    @Test("Opening throws one line naming the file, the record and the problem")
    func openRefusesDamage() throws {
        var bytes = Self.framed()
        bytes[Self.offset(of: 3) + 40] ^= 0x20
        try withJournal(bytes) { path in
            #expect {
                _ = try Journal(path: path).open(inbox: Self.inbox(path, []))
            } throws: { error in
                let text = "\(error)"
                return (error as? BrokerError)?.exitCode == 65 && !text.contains("\n")
                    && text.hasPrefix("\(path): record 3 at byte \(Self.offset(of: 3)): checksum mismatch")
            }
            // Nothing was cut or rewritten.
            let after = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(Array(after) == bytes)
        }
    }

    @Test("A torn last record is cut off only when a queued inbox line begins with it")
    func tornTailNeedsTheInbox() throws {
        let full = Self.framed()
        let cut = Array(full.prefix(Self.offset(of: 3) + 20))
        try withJournal(cut) { path in
            #expect(throws: BrokerError.self) { try Journal(path: path).open(inbox: Self.inbox(path, [Self.lines[0]])) }
            let untouched = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(Array(untouched) == cut)
            let contents = try Journal(path: path).open(inbox: Self.inbox(path, [Self.lines[3]]))
            #expect(contents.cutTornTail)
            #expect(contents.records.count == 3)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == Array(full.prefix(Self.offset(of: 3))))
        }
    }

    @Test("An unframed journal (one JSON line per event) is read as it is, and rewrite replaces it framed")
    func unframedIsMigrated() throws {
        let unframed = Array((Self.lines.joined(separator: "\n") + "\n").utf8)
        try withJournal(unframed) { path in
            let contents = try Journal(path: path).open(inbox: Self.inbox(path, []))
            #expect(contents.format == .unframed)
            #expect(contents.records.map { String(decoding: $0.payload, as: UTF8.self) } == Self.lines)
            let untouched = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(Array(untouched) == unframed)
            let journal = Journal(path: path)
            _ = try journal.open(inbox: Self.inbox(path, []))
            try journal.rewrite(contents.records)
            let rewritten = try Data(contentsOf: URL(fileURLWithPath: path))
            // Version 2: an empty checkpoint first, then the events.
            let start = JournalRecord.encode(.checkpointStart, JournalCheckpoint.payload(count: 0))
            #expect(Array(rewritten) == JournalRecord.header + start + Self.framed().dropFirst(JournalRecord.headerVersion1.count))
        }
    }

    @Test("A loss record round-trips, and identifiers are read from damaged JSON")
    func lossRecord() {
        let loss = JournalLoss(
            repairedAt: Date(timeIntervalSince1970: 1_790_000_000.5), transactionIds: ["1000", "a b%"], originalTransactionIds: ["o1"],
            unidentifiedRecords: 2)
        #expect(JournalLoss(payload: loss.payload) == loss)
        let ids = JournalLoss.identifiers(in: Array(#"{"transactionId" : "5001","originalTransactionId":"5000","productId":"p","transactionId":"cut"#.utf8))
        #expect(ids.transactions == ["5001"])
        #expect(ids.originals == ["5000"])
    }

    @Test("Checkpoint fact records read back every field exactly, escapes included")
    func factRecordsRoundTrip() {
        let date = Date(timeIntervalSince1970: 1_790_000_000.000_123_4)
        let transaction = StoreTransaction(
            transactionId: "t 1%", originalTransactionId: "o\n1", webOrderLineItemId: "w", bundleId: "b", productId: "p",
            subscriptionGroupIdentifier: "g", purchaseDate: date, originalPurchaseDate: date.addingTimeInterval(-1), expiresDate: date.addingTimeInterval(1),
            quantity: 2, type: .autoRenewable, appAccountToken: "", inAppOwnershipType: .familyShared, signedDate: date.addingTimeInterval(0.5),
            revocationReason: RevocationReason(rawValue: 1), revocationDate: date, revocationType: RevocationType(rawValue: "REFUND_FULL"),
            isUpgraded: true, offerType: .introductory, offerIdentifier: "-", offerDiscountType: .freeTrial, offerPeriod: "P1W",
            environment: .xcode, storefront: "USA", storefrontId: "143441", transactionReason: TransactionReason(rawValue: "RENEWAL"),
            price: -5, currency: "USD")
        #expect(JournalFactCodec.transaction(ArraySlice(JournalFactCodec.payload(transaction))) == transaction)
        let bare = StoreTransaction(transactionId: "t", originalTransactionId: "o", productId: "p", purchaseDate: date, type: .nonConsumable)
        #expect(JournalFactCodec.transaction(ArraySlice(JournalFactCodec.payload(bare))) == bare)
        let info = RenewalInfo(
            originalTransactionId: "o", autoRenewStatus: false, autoRenewProductId: "a", productId: "p", isInBillingRetryPeriod: true,
            gracePeriodExpiresDate: date, expirationIntent: ExpirationIntent(rawValue: 2), signedDate: date, renewalDate: date,
            recentSubscriptionStartDate: date, offerType: .introductory, offerIdentifier: "x", offerDiscountType: .payUpFront, environment: .sandbox)
        #expect(JournalFactCodec.renewalInfo(ArraySlice(JournalFactCodec.payload(info))) == info)
        #expect(JournalFactCodec.renewalInfo(ArraySlice(JournalFactCodec.payload(RenewalInfo(originalTransactionId: "o")))) == RenewalInfo(originalTransactionId: "o"))
        #expect(JournalFactCodec.transaction(ArraySlice(Array("t o".utf8))) == nil)
    }
}
