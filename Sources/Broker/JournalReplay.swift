import EntitlementModel

/// Rebuilds the facts a journal's records hold: the one replay rule, for the daemon's start and
/// for tools that read the journal (`entitlementctl status`).
package enum JournalReplay {
    package struct Outcome: Sendable {
        package var facts = FactStore()
        /// Facts that changed the store as they were replayed.
        package var replayed = 0
        /// Indexes of event records the catalog now refuses (skipped).
        package var refused: [Int] = []
    }

    /// Replays `records` (from a journal of `format` at `path`) under `catalog`.
    ///
    /// An event record is decoded and inserted; one whose checksum verified but that the catalog
    /// now refuses (the catalog changed) is skipped and listed. In an unframed journal, which has
    /// no checksums, a line that does not decode may be damage and is refused like damage. A
    /// checkpoint's fact records are read straight into the store (after its names record); one
    /// the catalog now refuses is skipped and listed too. A summary record restores what the
    /// compaction before it recorded; a loss record withholds what it names.
    /// - Throws: ``BrokerError/badInput(_:)`` naming the record, for an unreadable record.
    package static func replay(_ records: [JournalRecord], format: JournalScan.Format, path: String, catalog: Catalog) throws(BrokerError) -> Outcome {
        var outcome = Outcome()
        outcome.facts.reserveCapacity(
            transactions: records.count(where: { $0.kind == .checkpointTransaction || $0.kind == .transaction || $0.kind == .event }))
        var checkpoint = FactStore.CheckpointReader(catalog: catalog)
        var scratch: [UInt8] = []
        func damaged(_ record: JournalRecord, _ problem: String) -> BrokerError {
            .badInput(Journal.damageMessage(path: path, JournalDamage(index: record.index, offset: record.offset, problem: problem, bytes: Array(record.payload)), more: 0))
        }
        for record in records {
            switch record.kind {
            case .event:
                guard let events = try? EventLine.decode(String(decoding: record.payload, as: UTF8.self), catalog: catalog) else {
                    guard format == .framed else { throw damaged(record, "line does not decode") }
                    outcome.refused.append(record.index)
                    continue
                }
                for event in events where outcome.facts.insert(event) { outcome.replayed += 1 }
            case .transaction, .renewalInfo:
                let decoded = record.kind == .transaction
                    ? JournalFactCodec.transaction(record.payload).map(StoreEvent.transaction)
                    : JournalFactCodec.renewalInfo(record.payload).map(StoreEvent.renewalInfo)
                guard let event = decoded else { throw damaged(record, "unreadable fact record") }
                // Validated when first journaled; a catalog that changed since may refuse it.
                guard (try? catalog.validate(event)) != nil else {
                    outcome.refused.append(record.index)
                    continue
                }
                if outcome.facts.insert(event) { outcome.replayed += 1 }
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
                case .refused: outcome.refused.append(record.index)
                case .unreadable: throw damaged(record, "unreadable transaction record")
                }
            case .checkpointRenewalInfo:
                guard let info = JournalBinary.withUnescaped(record.payload, scratch: &scratch, { checkpoint.renewalInfo($0) }) ?? nil else {
                    throw damaged(record, "unreadable renewal info record")
                }
                guard (try? catalog.validate(.renewalInfo(info))) != nil else {
                    outcome.refused.append(record.index)
                    continue
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

    /// The records of a checkpoint of `facts`: its names, each fact held (binary, see
    /// ``FactStore/checkpointPayloads(_:)``), then the summary.
    package static func checkpoint(of facts: FactStore) -> [JournalRecord] {
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
        var records = pieces.enumerated().map { index, piece in
            JournalRecord(kind: piece.0, payload: escaped[piece.1], index: index, offset: 0)
        }
        records.append(JournalRecord(kind: .summary, payload: JournalSummary.payload(facts.summary), index: records.count, offset: 0))
        return records
    }
}
