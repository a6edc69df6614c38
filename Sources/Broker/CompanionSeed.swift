import Entitlements
import StoreKitFormats

/// What a companion outbox offers when it is first created: everything the journal holds, so a
/// peer paired after a compaction still learns the older purchases.
///
/// A checkpoint keeps facts, not the lines they came from: its transactions and renewal infos are
/// offered as unsigned lines in StoreKit's `jsonRepresentation` shape (``StoreTransaction/jsonRepresentation``),
/// which a peer whose catalog reads unsigned payloads applies, and a peer under
/// `signatures: required` keeps unread, granting nothing (``KeptLine``): the JWS that proved them
/// is gone, and nothing on this side can sign again. Its app transactions and grants are not
/// offered: their trust is their signature (a Production build's, a grant key's), which an
/// unsigned line cannot carry. Then come the journal's event lines, as they were accepted.
package enum CompanionSeed {
    /// The lines to offer for the journal `records` (of `format`, at `path`), checkpoint facts first.
    package static func lines(
        of records: [JournalRecord], format: JournalScan.Format, path: String, catalog: Catalog, log: (String) -> Void
    ) -> [String] {
        let events = records.filter { $0.kind == .event }.map { String(decoding: $0.payload, as: UTF8.self) }
        let checkpoint = records.filter { $0.kind != .event }
        guard checkpoint.contains(where: { $0.kind != .checkpointStart }) else { return events }
        guard let facts = try? JournalReplay.replay(checkpoint, format: format, path: path, catalog: catalog).facts else {
            log("companion: \(path): the journal's checkpoint does not read; offering its event lines only")
            return events
        }
        var lines: [String] = []
        var unoffered = 0
        for fact in facts.checkpointEvents {
            switch fact {
            case .transaction(let transaction): lines.append(transaction.jsonRepresentation.serialized)
            case .renewalInfo(let info): lines.append(info.jsonRepresentation.serialized)
            default: unoffered += 1
            }
        }
        if unoffered > 0 {
            log("companion: \(unoffered) app transactions and grants of the journal's checkpoint are not offered: their signatures are not kept")
        }
        return lines + events
    }
}
