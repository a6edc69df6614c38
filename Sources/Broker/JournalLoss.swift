import FoundationEssentials

/// What the repair command could not keep, written into the repaired journal as one loss record
/// (``JournalRecord/Kind/loss``), so every later start knows which facts it may be missing.
///
/// The daemon withholds access from every subscription a lost record named (by transaction or
/// original transaction id) until a version signed after the repair arrives: a lost refund must
/// not turn back into a purchase. When a lost record named no transaction it could read, every
/// subscription known at that point is withheld the same way.
///
/// Payload: space-separated words, `repairedAt <ms since 1970> unidentified <count>` then
/// `transaction <id>` and `original <id>` pairs; ids are percent-encoded outside printable ASCII.
package struct JournalLoss: Sendable, Hashable {
    /// When the repair ran: only versions signed after it end the withholding.
    package var repairedAt: Date
    /// Transaction ids read from the lost records.
    package var transactionIds: [String]
    /// Original transaction ids read from the lost records.
    package var originalTransactionIds: [String]
    /// How many lost records named no transaction that could be read.
    package var unidentifiedRecords: Int

    package init(repairedAt: Date, transactionIds: [String] = [], originalTransactionIds: [String] = [], unidentifiedRecords: Int = 0) {
        self.repairedAt = repairedAt
        self.transactionIds = transactionIds
        self.originalTransactionIds = originalTransactionIds
        self.unidentifiedRecords = unidentifiedRecords
    }

    package var payload: [UInt8] {
        var words = ["repairedAt", String(Int64((repairedAt.timeIntervalSince1970 * 1000).rounded())), "unidentified", String(unidentifiedRecords)]
        for id in transactionIds { words += ["transaction", JournalWords.escape(id)] }
        for id in originalTransactionIds { words += ["original", JournalWords.escape(id)] }
        return Array(words.joined(separator: " ").utf8)
    }

    /// Reads a loss record's payload; `nil` when it is not one.
    package init?(payload: [UInt8]) {
        let words = JournalWords.split(payload)
        guard words.count >= 4, words.count % 2 == 0, words[0] == "repairedAt", let milliseconds = Int64(words[1]),
            words[2] == "unidentified", let unidentified = Int(words[3])
        else { return nil }
        self.init(repairedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000), unidentifiedRecords: unidentified)
        for pair in stride(from: 4, to: words.count, by: 2) {
            guard let id = JournalWords.unescape(words[pair + 1]) else { return nil }
            switch words[pair] {
            case "transaction": transactionIds.append(id)
            case "original": originalTransactionIds.append(id)
            default: return nil
            }
        }
    }

    /// The transaction and original transaction ids written in `bytes` (damaged JSON): every
    /// `"transactionId"` and `"originalTransactionId"` member whose string value is whole.
    package static func identifiers(in bytes: [UInt8]) -> (transactions: [String], originals: [String]) {
        var transactions: [String] = [], originals: [String] = []
        for (key, isOriginal) in [("\"transactionId\"", false), ("\"originalTransactionId\"", true)] {
            let pattern = Array(key.utf8)
            var position = 0
            while position + pattern.count <= bytes.count {
                guard bytes[position..<(position + pattern.count)].elementsEqual(pattern) else {
                    position += 1
                    continue
                }
                var cursor = position + pattern.count
                position += 1
                while cursor < bytes.count, bytes[cursor] == 0x20 { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == 0x3A else { continue }
                cursor += 1
                while cursor < bytes.count, bytes[cursor] == 0x20 { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == 0x22 else { continue }
                cursor += 1
                guard let close = bytes[cursor...].firstIndex(of: 0x22), close > cursor, close - cursor <= 128 else { continue }
                let id = String(decoding: bytes[cursor..<close], as: UTF8.self)
                if isOriginal { if !originals.contains(id) { originals.append(id) } } else if !transactions.contains(id) { transactions.append(id) }
            }
        }
        return (transactions, originals)
    }
}
