import Entitlements
import StoreKitFormats

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
    /// checkpoint's fact records are decoded by the same decoder, without the signature policy
    /// (they were checked when first accepted); earlier checkpoints' text and binary fact records
    /// are read too. A
    /// summary record restores what the compaction before it recorded; a loss record withholds
    /// what it names.
    /// - Throws: ``BrokerError/badInput(_:)`` naming the record, for an unreadable record.
    package static func replay(_ records: [JournalRecord], format: JournalScan.Format, path: String, catalog: Catalog) throws(BrokerError) -> Outcome {
        var outcome = Outcome()
        outcome.facts.reserveCapacity(
            transactions: records.count(where: { $0.kind == .fact || $0.kind == .event }))
        var binary = JournalBinaryCheckpoint()
        func damaged(_ record: JournalRecord, _ problem: String) -> BrokerError {
            .badInput(Journal.damageMessage(path: path, JournalDamage(index: record.index, offset: record.offset, problem: problem, bytes: Array(record.payload)), more: 0))
        }
        func insert(_ event: StoreEvent?, _ record: JournalRecord) throws(BrokerError) {
            guard let event else { throw damaged(record, "unreadable \(record.kind == .checkpointNames ? "names" : "fact") record") }
            if outcome.facts.insert(event) { outcome.replayed += 1 }
        }
        var decoder = ReplayDecoder(records, signatures: catalog.signatures)
        for (position, record) in records.enumerated() {
            let reading = decoder.reading(at: position)
            switch record.kind {
            case .event:
                // A framed line was accepted once (its checksum says so): kept whatever it reads as now.
                guard case .event(.read(let events)?) = reading else {
                    guard format == .framed else { throw damaged(record, "line does not decode") }
                    outcome.unread.append(String(decoding: record.payload, as: UTF8.self))
                    continue
                }
                for event in events where outcome.facts.insert(event) { outcome.replayed += 1 }
            case .fact:
                // A fact the daemon held when it compacted: read again as it was first read, by
                // the same decoder, its signature checked when it was accepted.
                try insert(reading.fact, record)
            case .checkpointStart:
                // Its count is the scan's to check (``JournalCheckpoint``).
                continue
            case .transaction: try insert(JournalFactCodec.transaction(record.payload).map(StoreEvent.transaction), record)
            case .renewalInfo: try insert(JournalFactCodec.renewalInfo(record.payload).map(StoreEvent.renewalInfo), record)
            case .checkpointAppTransaction: try insert(JournalFactCodec.appTransaction(record.payload).map(StoreEvent.appTransaction), record)
            case .checkpointGrant: try insert(JournalFactCodec.grant(record.payload).map(StoreEvent.grant), record)
            case .checkpointNames: guard binary.readNames(record.payload) else { throw damaged(record, "unreadable names record") }
            case .checkpointTransaction: try insert(binary.transaction(record.payload).map(StoreEvent.transaction), record)
            case .checkpointRenewalInfo: try insert(binary.renewalInfo(record.payload).map(StoreEvent.renewalInfo), record)
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

    /// The records of a checkpoint of `facts`: its start (``JournalCheckpoint``), each fact held
    /// as a fact record (its JSON, the shape ``EventDecoder`` reads), the summary, then the event
    /// lines `carrying` (``Outcome/unread``) as they were.
    package static func checkpoint(of facts: FactStore, carrying lines: [String] = []) -> [JournalRecord] {
        var payloads: [(JournalRecord.Kind, [UInt8])] = facts.checkpointEvents.map { (.fact, Array($0.factRepresentation.serialized.utf8)) }
        payloads.append((.summary, JournalSummary.payload(facts.summary)))
        // After the summary, so that a catalog that reads them again counts them in the product
        // history the summary restored.
        payloads += lines.map { (.event, Array($0.utf8)) }
        // Positions as read back: the start first, then every record it counts.
        return [JournalRecord(kind: .checkpointStart, payload: JournalCheckpoint.payload(count: payloads.count), index: 0, offset: 0)]
            + payloads.enumerated().map { JournalRecord(kind: $1.0, payload: $1.1, index: $0 + 1, offset: 0) }
    }
}
