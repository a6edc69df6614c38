/// A whole journal file read record by record: the intact records, the damaged stretches between
/// them, and a torn last record, if any. Pure: it judges bytes, and leaves deciding what to do
/// about damage to ``Journal`` and the repair command.
package struct JournalScan: Sendable {
    /// How the file was written.
    package enum Format: Sendable {
        /// Framed, checksummed records (``JournalRecord``).
        case framed
        /// One raw JSON line per event, no checksum: journals written before records were framed.
        case unframed
    }

    package var format: Format
    /// The framed format's version (its first line): 2, whose checkpoint says its length, or 1.
    /// An empty file is a new journal, of version 2.
    package var version = 2
    /// Intact records, in file order.
    package var records: [JournalRecord] = []
    /// Damaged stretches, in file order.
    package var damage: [JournalDamage] = []
    /// The last record, when the file ends inside it: the bytes from `offset` to the end.
    package var tornTail: (index: Int, offset: Int, bytes: [UInt8])?
    /// Where the last intact record (or the header) ends: a torn tail is cut back to here.
    package var intactLength: Int

    /// Reads `bytes`, a whole journal file. In a journal of version 2, a checkpoint cut short
    /// (or missing) is damage too (``JournalCheckpoint/damage(in:positions:fileLength:)``).
    package init(_ bytes: [UInt8]) {
        if bytes.isEmpty || bytes.starts(with: JournalRecord.header) || bytes.starts(with: JournalRecord.headerVersion1) {
            format = .framed
            if bytes.starts(with: JournalRecord.headerVersion1) { version = 1 }
            intactLength = bytes.isEmpty ? 0 : JournalRecord.header.count
            let positions = scanFramed(bytes)
            if version == 2, !bytes.isEmpty {
                damage += JournalCheckpoint.damage(in: self, positions: positions, fileLength: bytes.count)
                damage.sort { ($0.offset, $0.index) < ($1.offset, $1.index) }
            }
        } else if JournalRecord.header.starts(with: bytes) || JournalRecord.headerVersion1.starts(with: bytes) {
            // A new journal whose header line itself was cut short.
            format = .framed
            intactLength = 0
            tornTail = (0, 0, bytes)
        } else {
            format = .unframed
            intactLength = 0
            scanUnframed(bytes)
        }
    }

    /// Scans the records after the header; returns how many places (records, damaged stretches
    /// and a torn last record) the file holds.
    private mutating func scanFramed(_ array: [UInt8]) -> Int {
        array.withUnsafeBufferPointer { scanFramed(array, $0) }
    }

    private mutating func scanFramed(_ array: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var position = intactLength
        var index = 0
        while position < bytes.count {
            switch JournalRecord.parse(bytes, at: position) {
            case .record(let kind, let payload, let end):
                records.append(JournalRecord(kind: kind, payload: array[payload], index: index, offset: position))
                position = end
                intactLength = end
            case .incomplete:
                tornTail = (index, position, Array(bytes[position...]))
                return index + 1
            case .damaged(let problem, let end, let intact):
                let next = Self.resynchronise(bytes, after: position, expectedEnd: end)
                damage.append(
                    JournalDamage(index: index, offset: position, problem: problem, bytes: Array(bytes[position..<next]), intactPayload: intact))
                position = next
            }
            index += 1
        }
        return index
    }

    /// Where intact records start again after damage at `start`: where the damaged record's own
    /// length says it ends, if a record (or a torn last one) starts there; else the first line
    /// start after `start` where one does; else the end of the file.
    private static func resynchronise(_ bytes: UnsafeBufferPointer<UInt8>, after start: Int, expectedEnd: Int?) -> Int {
        func startsRecord(_ position: Int) -> Bool {
            guard position < bytes.count else { return position == bytes.count }
            switch JournalRecord.parse(bytes, at: position) {
            case .record, .incomplete: return true
            case .damaged: return false
            }
        }
        if let expectedEnd, expectedEnd > start, expectedEnd <= bytes.count, startsRecord(expectedEnd) { return expectedEnd }
        var position = start + 1
        while position < bytes.count {
            if bytes[position - 1] == 0x0A, startsRecord(position) { return position }
            position += 1
        }
        return bytes.count
    }

    private mutating func scanUnframed(_ bytes: [UInt8]) {
        var position = 0
        var index = 0
        while position < bytes.count {
            guard let newline = bytes[position...].firstIndex(of: 0x0A) else {
                tornTail = (index, position, Array(bytes[position...]))
                return
            }
            if newline > position {
                records.append(JournalRecord(kind: .event, payload: bytes[position..<newline], index: index, offset: position))
                index += 1
            }
            position = newline + 1
            intactLength = position
        }
    }

    /// Whether the torn tail is the beginning of what an append of `line` would have written:
    /// then the crash happened mid-append, and the inbox file that carries `line` still exists.
    package func tornTailBegins(_ line: String) -> Bool {
        guard let tornTail else { return false }
        let full: [UInt8]
        switch format {
        case .framed: full = tornTail.offset == 0 ? JournalRecord.header : JournalRecord.encode(.event, Array(line.utf8))
        case .unframed: full = Array(line.utf8) + [0x0A]
        }
        return full.count > tornTail.bytes.count && full.starts(with: tornTail.bytes)
    }
}

/// One damaged stretch of a journal: a record that fails its checksum or framing, up to where
/// intact records start again.
package struct JournalDamage: Sendable, CustomStringConvertible {
    /// The record's position (0 for the first after the header line).
    package var index: Int
    /// Byte offset in the file.
    package var offset: Int
    /// What is wrong, in a few words.
    package var problem: String
    /// The damaged bytes, as found.
    package var bytes: [UInt8]
    /// The payload, when only the newline after it was damaged and its checksum still verifies.
    package var intactPayload: [UInt8]?

    package init(index: Int, offset: Int, problem: String, bytes: [UInt8], intactPayload: [UInt8]? = nil) {
        self.index = index
        self.offset = offset
        self.problem = problem
        self.bytes = bytes
        self.intactPayload = intactPayload
    }

    package var description: String { "record \(index) at byte \(offset): \(problem)" }
}
