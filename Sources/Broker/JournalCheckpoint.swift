/// The start of a checkpoint (``JournalRecord/Kind/checkpointStart``, `c`): how many records
/// follow it in its checkpoint. Payload: that count, in decimal.
///
/// A journal of version 2 begins with a checkpoint: its start, then the records the start counts
/// (a compaction's names, facts and summary, and the event lines it carried as they were), then
/// the records appended since, each standing alone. A journal whose checkpoint start is missing,
/// or is followed by fewer records than it counts, was cut short inside its checkpoint: that is
/// damage (``damage(in:)``), reported as a damaged record is. What a cut after the checkpoint
/// takes (whole appended records) cannot be told from a journal that never held them.
enum JournalCheckpoint {
    /// The kinds of the records a checkpoint of version 1 held, which had no start record.
    static let version1Kinds: Set<JournalRecord.Kind> = [.checkpointNames, .checkpointTransaction, .checkpointRenewalInfo, .transaction, .renewalInfo, .summary]

    static func payload(count: Int) -> [UInt8] { Array(String(count).utf8) }

    /// The count in a start record's payload; `nil` when it is not one.
    static func count(_ payload: some Collection<UInt8>) -> Int? {
        guard !payload.isEmpty, payload.count <= 9, payload.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return payload.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `records` (oldest first, with the positions they were read at) as a version 2 journal
    /// holds them: a start record counting the records of its checkpoint still among them, then
    /// those records, then the rest. A start record already first keeps its checkpoint (the
    /// records read within its count); without one, a version 1 checkpoint's leading records are
    /// the checkpoint, and with none of those it is empty.
    static func beginningWithCheckpoint(_ records: [JournalRecord]) -> [JournalRecord] {
        var rest = records[...]
        let held: Int
        if let first = rest.first, first.kind == .checkpointStart {
            rest = rest.dropFirst()
            let counted = count(first.payload) ?? 0
            held = rest.prefix { $0.index > first.index && $0.index <= first.index + counted }.count
        } else {
            held = rest.prefix { version1Kinds.contains($0.kind) }.count
        }
        let start = JournalRecord(kind: .checkpointStart, payload: payload(count: held), index: 0, offset: 0)
        return [start] + rest.filter { $0.kind != .checkpointStart }
    }

    /// What is wrong with the checkpoint of a version 2 journal scanned as `scan` (its records,
    /// damage and torn tail, `positions` places in all), if anything: a start record missing,
    /// unreadable or out of place, or fewer records after it than it counts.
    static func damage(in scan: JournalScan, positions: Int, fileLength: Int) -> [JournalDamage] {
        var found: [JournalDamage] = []
        for record in scan.records where record.kind == .checkpointStart && record.index != 0 {
            found.append(JournalDamage(index: record.index, offset: record.offset, problem: "a checkpoint start after the first record", bytes: JournalRecord.encode(record.kind, record.payload)))
        }
        guard let first = scan.records.first, first.index == 0 else {
            // A damaged or torn first record is reported as such; nothing at all is a cut.
            if positions == 0 {
                found.append(JournalDamage(
                    index: 0, offset: fileLength,
                    problem: "cut short after its first line: the checkpoint every journal begins with is missing", bytes: []))
            }
            return found
        }
        guard first.kind == .checkpointStart, let counted = count(first.payload) else {
            let problem = first.kind == .checkpointStart ? "unreadable checkpoint start" : "the journal does not begin with a checkpoint start"
            return [JournalDamage(index: 0, offset: first.offset, problem: problem, bytes: JournalRecord.encode(first.kind, first.payload))] + found
        }
        let present = positions - 1
        if present < counted {
            found.append(JournalDamage(
                index: positions, offset: fileLength,
                problem: "cut short inside the checkpoint: \(present) of the \(counted) records it holds are present", bytes: []))
        }
        return found
    }
}
