import EntitlementDefaults
import StoreKitFormats
import FoundationEssentials
import SignedData
import SystemShims

/// `entitlementctl journal-repair`: sets a damaged journal's damage aside so the daemon can start
/// again, and says what was lost.
///
/// With the daemon's lock held (a running daemon makes it fail with 75), it copies every damaged
/// stretch, as found, into a side file `Library/Broker/journal-damaged-<ms since 1970>.txt`, then
/// replaces the journal atomically with its intact records, the payloads whose checksum still
/// verifies behind a damaged newline, and one loss record (``JournalLoss``) naming the
/// transactions the damaged stretches mentioned. The daemon withholds access from those
/// subscriptions until Apple signs a newer version: the loss is never turned into access.
/// A torn last record whose event is still queued in the inbox is cut off and is not a loss.
package enum JournalRepair {
    /// One damaged stretch that was set aside.
    package struct LostRecord: Sendable {
        package var damage: JournalDamage
        package var transactionIds: [String]
        package var originalTransactionIds: [String]
    }

    /// What a repair did.
    package struct Report: Sendable {
        package var journalPath: String
        /// Intact records kept.
        package var keptRecords: Int
        /// Records whose payload verified behind a damaged newline, kept too.
        package var recoveredRecords: Int
        /// Whether a torn last record, still queued in the inbox, was cut off.
        package var cutTornTail: Bool
        package var lost: [LostRecord]
        /// Where the damaged bytes were copied, when any were.
        package var sideFile: String?
        /// Whether the journal was rewritten (also when an unframed journal was only converted).
        package var rewrote: Bool
    }

    /// Repairs the journal of `layout`. `now` is the repair's instant: only facts signed after it
    /// end the withholding of what was lost.
    package static func run(layout: ContainerLayout, now: Date) throws(BrokerError) -> Report {
        let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
        defer { try? lock.unlock() }
        let path = layout.journalPath
        let scan = JournalScan(try Journal.read(path))
        var damage = scan.damage
        var cutTornTail = false
        if let torn = scan.tornTail {
            let lines = try Inbox(directory: layout.inboxDirectory).queuedLines()
            if torn.offset == 0 || lines.contains(where: scan.tornTailBegins) {
                cutTornTail = true
            } else {
                damage.append(JournalDamage(index: torn.index, offset: torn.offset, problem: "cut short after \(torn.bytes.count) bytes", bytes: torn.bytes))
            }
        }
        var kept = scan.records
        if scan.format == .unframed {
            // Without checksums, a line that does not decode (its shape, or a broken signature: trust
            // is for the replay to judge) is all that shows damage.
            kept = []
            for record in scan.records {
                if (try? EventDecoder.decode(line: record.payload, signatures: .optional)) != nil { kept.append(record); continue }
                damage.append(JournalDamage(index: record.index, offset: record.offset, problem: "line does not decode", bytes: Array(record.payload)))
            }
        }
        var lost: [LostRecord] = []
        var recovered = 0
        for stretch in damage {
            if let payload = stretch.intactPayload {
                // Its kind is its first byte (the checksum that verified covers it).
                let kind = stretch.bytes.first.flatMap(JournalRecord.Kind.init(rawValue:)) ?? .event
                kept.append(JournalRecord(kind: kind, payload: payload, index: stretch.index, offset: stretch.offset))
                recovered += 1
                // The rest of the stretch, past the recovered record, is lost only if it is more
                // than the damaged newline.
                let rest = Array(stretch.bytes.dropFirst(JournalRecord.encode(kind, payload).count))
                if rest.isEmpty { continue }
                var remainder = stretch
                remainder.bytes = rest
                remainder.intactPayload = nil
                lost.append(lostRecord(remainder))
                continue
            }
            lost.append(lostRecord(stretch))
        }
        kept.sort { $0.offset < $1.offset }
        var report = Report(
            journalPath: path, keptRecords: kept.count - recovered, recoveredRecords: recovered, cutTornTail: cutTornTail, lost: lost,
            sideFile: nil, rewrote: false)
        guard !damage.isEmpty || cutTornTail || scan.format == .unframed else { return report }

        if !lost.isEmpty {
            let name = "journal-damaged-\(Int64((now.timeIntervalSince1970 * 1000).rounded())).txt"
            var side: [UInt8] = []
            for record in lost {
                side += Array("# \(record.damage)\n".utf8) + record.damage.bytes + [0x0A]
            }
            do {
                try AtomicFile.replace(directory: layout.brokerDirectory, name: name, bytes: side, mode: ContainerLayout.fileMode, durable: true)
            } catch {
                throw .io(path: layout.brokerDirectory + "/" + name, operation: "write", errno: error)
            }
            report.sideFile = layout.brokerDirectory + "/" + name
            let loss = JournalLoss(
                repairedAt: now, transactionIds: lost.flatMap(\.transactionIds), originalTransactionIds: lost.flatMap(\.originalTransactionIds),
                unidentifiedRecords: lost.filter { $0.transactionIds.isEmpty && $0.originalTransactionIds.isEmpty }.count)
            // Last, and outside any checkpoint's count.
            kept.append(JournalRecord(kind: .loss, payload: loss.payload, index: Int.max, offset: Int.max))
        }
        try Journal.replace(path: path, records: kept)
        report.rewrote = true
        return report
    }

    private static func lostRecord(_ damage: JournalDamage) -> LostRecord {
        var ids = JournalLoss.identifiers(in: damage.bytes)
        if ids.transactions.isEmpty, ids.originals.isEmpty, let payload = payloadOfSignedLine(damage.bytes) {
            ids = JournalLoss.identifiers(in: payload)
        }
        return LostRecord(damage: damage, transactionIds: ids.transactions, originalTransactionIds: ids.originals)
    }

    /// The decoded payload segments of any JWS compact strings in `bytes` (base64url between
    /// dots), for lost lines that carried signed data.
    private static func payloadOfSignedLine(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        for token in bytes.split(whereSeparator: { !(Self.isBase64URL($0) || $0 == 0x2E) }) {
            let parts = token.split(separator: 0x2E, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            if let payload = Base64.decode(url: String(decoding: parts[1], as: UTF8.self)) { out += payload + [0x20] }
        }
        return out.isEmpty ? nil : out
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
    }
}
