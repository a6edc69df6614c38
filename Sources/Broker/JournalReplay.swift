import EntitlementModel

/// Rebuilds the facts a journal's records hold: the one replay rule, for the daemon's start and
/// for tools that read the journal (`entitlementctl status`).
package enum JournalReplay {
    package struct Outcome: Sendable {
        package var facts = FactStore()
        /// Facts that changed the store as they were replayed.
        package var replayed = 0
        /// Event lines whose checksum verified but that `catalog`'s signature policy does not
        /// read (the catalog changed since they were accepted): kept as they are, to be carried
        /// into the next checkpoint (``checkpoint(of:carrying:)``), and read again under a
        /// catalog that reads them.
        package var unread: [String] = []
    }

    /// Replays `records` (from a journal of `format` at `path`) under `catalog`.
    ///
    /// Kept means kept: every fact the journal holds is inserted, whatever `catalog` says of its
    /// app or environment (the engine decides what it grants, ``Catalog/counts(_:)``). An event
    /// record is decoded with `catalog`'s signature policy; one that policy does not read is
    /// listed in ``Outcome/unread``, never dropped. In an unframed journal, which has no
    /// checksums, a line that does not decode may be damage and is refused like damage. A
    /// checkpoint's fact records are read straight into the store (after its names record). A
    /// summary record restores what the compaction before it recorded; a loss record withholds
    /// what it names.
    /// - Throws: ``BrokerError/badInput(_:)`` naming the record, for an unreadable record.
    package static func replay(_ records: [JournalRecord], format: JournalScan.Format, path: String, catalog: Catalog) throws(BrokerError) -> Outcome {
        var outcome = Outcome()
        outcome.facts.reserveCapacity(
            transactions: records.count(where: { $0.kind == .checkpointTransaction || $0.kind == .transaction || $0.kind == .event }))
        var checkpoint = FactStore.CheckpointReader()
        var scratch: [UInt8] = []
        func damaged(_ record: JournalRecord, _ problem: String) -> BrokerError {
            .badInput(Journal.damageMessage(path: path, JournalDamage(index: record.index, offset: record.offset, problem: problem, bytes: Array(record.payload)), more: 0))
        }
        for record in records {
            switch record.kind {
            case .event:
                // A framed line was accepted once (its checksum says so): kept whatever it reads as now.
                guard case .read(let events) = try? KeptLine.reading(record.payload, signatures: catalog.signatures) else {
                    guard format == .framed else { throw damaged(record, "line does not decode") }
                    outcome.unread.append(String(decoding: record.payload, as: UTF8.self))
                    continue
                }
                for event in events where outcome.facts.insert(event) { outcome.replayed += 1 }
            case .transaction, .renewalInfo:
                let decoded = record.kind == .transaction
                    ? JournalFactCodec.transaction(record.payload).map(StoreEvent.transaction)
                    : JournalFactCodec.renewalInfo(record.payload).map(StoreEvent.renewalInfo)
                guard let event = decoded else { throw damaged(record, "unreadable fact record") }
                if outcome.facts.insert(event) { outcome.replayed += 1 }
            case .checkpointAppTransaction:
                guard let app = JournalFactCodec.appTransaction(record.payload) else { throw damaged(record, "unreadable app transaction record") }
                if outcome.facts.insert(.appTransaction(app)) { outcome.replayed += 1 }
            case .checkpointGrant:
                guard let grant = JournalFactCodec.grant(record.payload) else { throw damaged(record, "unreadable grant record") }
                if outcome.facts.insert(.grant(grant)) { outcome.replayed += 1 }
            case .checkpointStart:
                // Its count is the scan's to check (``JournalCheckpoint``).
                continue
            case .checkpointNames:
                let read = JournalBinary.withUnescaped(record.payload, scratch: &scratch) { checkpoint.readNames($0) }
                guard read == true else { throw damaged(record, "unreadable names record") }
            case .checkpointTransaction:
                let insertion = JournalBinary.withUnescaped(record.payload, scratch: &scratch) {
                    checkpoint.insertTransaction($0, into: &outcome.facts)
                }
                switch insertion ?? .unreadable {
                case .inserted: outcome.replayed += 1
                case .unchanged: break
                case .unreadable: throw damaged(record, "unreadable transaction record")
                }
            case .checkpointRenewalInfo:
                guard let info = JournalBinary.withUnescaped(record.payload, scratch: &scratch, { checkpoint.renewalInfo($0) }) ?? nil else {
                    throw damaged(record, "unreadable renewal info record")
                }
                if outcome.facts.insert(.renewalInfo(info)) { outcome.replayed += 1 }
            case .summary:
                guard let summary = JournalSummary.summary(Array(record.payload)) else { throw damaged(record, "unreadable summary record") }
                outcome.facts.restore(summary)
            case .loss:
                guard let loss = JournalLoss(payload: Array(record.payload)) else { throw damaged(record, "unreadable loss record") }
                outcome.facts.withhold(
                    transactionIds: loss.transactionIds, originalTransactionIds: loss.originalTransactionIds,
                    everything: loss.unidentifiedRecords > 0, since: loss.repairedAt)
            }
        }
        return outcome
    }

    /// The records of a checkpoint of `facts`: its start (``JournalCheckpoint``), its names, each
    /// transaction and renewal info held (binary, see ``FactStore/checkpointPayloads(_:)``), each
    /// app transaction and grant (in words, ``JournalFactCodec``), the summary, then the event
    /// lines `carrying` (``Outcome/unread``) as they were.
    package static func checkpoint(of facts: FactStore, carrying lines: [String] = []) -> [JournalRecord] {
        // Every payload escaped into one buffer; the records are slices of it.
        var escaped: [UInt8] = []
        var pieces: [(JournalRecord.Kind, Range<Int>)] = []
        facts.checkpointPayloads { payload, bytes in
            let kind: JournalRecord.Kind
            switch payload {
            case .names: kind = .checkpointNames
            case .transaction: kind = .checkpointTransaction
            case .renewalInfo: kind = .checkpointRenewalInfo
            }
            let start = escaped.count
            JournalBinary.appendEscaped(bytes, to: &escaped)
            pieces.append((kind, start..<escaped.count))
        }
        // Positions as read back: the start first, then every record it counts.
        var records = pieces.enumerated().map { index, piece in
            JournalRecord(kind: piece.0, payload: escaped[piece.1], index: index + 1, offset: 0)
        }
        // App transactions and grants, in words, by id.
        for id in facts.appTransactions.keys.sorted() {
            guard let app = facts.appTransaction(id: id) else { continue }
            records.append(JournalRecord(kind: .checkpointAppTransaction, payload: JournalFactCodec.payload(app), index: records.count + 1, offset: 0))
        }
        for id in facts.grants.keys.sorted() {
            guard let grant = facts.grant(id: id) else { continue }
            records.append(JournalRecord(kind: .checkpointGrant, payload: JournalFactCodec.payload(grant), index: records.count + 1, offset: 0))
        }
        records.append(JournalRecord(kind: .summary, payload: JournalSummary.payload(facts.summary), index: records.count + 1, offset: 0))
        // After the summary, so that a catalog that reads them again counts them in the product
        // history the summary restored.
        for line in lines { records.append(JournalRecord(kind: .event, payload: Array(line.utf8), index: records.count + 1, offset: 0)) }
        return [JournalRecord(kind: .checkpointStart, payload: JournalCheckpoint.payload(count: records.count), index: 0, offset: 0)] + records
    }
}
