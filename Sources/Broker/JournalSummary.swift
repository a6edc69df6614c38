import Entitlements
import FoundationEssentials

/// The payload of a summary record (``JournalRecord/Kind/summary``): a ``FactStore/Summary``,
/// which ends the checkpoint a compaction writes.
///
/// Words: `signed <date>`, then `product <id> <transactions> <introductory offers>` and
/// `withheld <original id> <date>` groups. A date is the 16 hex digits of its
/// `timeIntervalSinceReferenceDate`'s bits, so it reads back exactly; `-` is no date.
enum JournalSummary {
    static func payload(_ summary: FactStore.Summary) -> [UInt8] {
        var words = ["signed", summary.newestSignedDate.map(date) ?? "-"]
        for (productId, use) in summary.productUses.sorted(by: { $0.key < $1.key }) {
            words += ["product", JournalWords.escape(productId), String(use.transactions), String(use.introductoryOffers)]
        }
        for (original, since) in summary.withheld.sorted(by: { $0.key < $1.key }) {
            words += ["withheld", JournalWords.escape(original), date(since)]
        }
        return Array(words.joined(separator: " ").utf8)
    }

    /// The summary in `payload`; `nil` when it is not one.
    static func summary(_ payload: [UInt8]) -> FactStore.Summary? {
        let words = JournalWords.split(payload)
        guard words.count >= 2, words[0] == "signed" else { return nil }
        var summary = FactStore.Summary(newestSignedDate: nil, productUses: [:], withheld: [:])
        if words[1] != "-" {
            guard let signed = date(words[1]) else { return nil }
            summary.newestSignedDate = signed
        }
        var position = 2
        while position < words.count {
            switch words[position] {
            case "product":
                guard position + 3 < words.count, let id = JournalWords.unescape(words[position + 1]),
                    let transactions = Int(words[position + 2]), let offers = Int(words[position + 3])
                else { return nil }
                summary.productUses[id] = FactStore.ProductUse(transactions: transactions, introductoryOffers: offers)
                position += 4
            case "withheld":
                guard position + 2 < words.count, let id = JournalWords.unescape(words[position + 1]), let since = date(words[position + 2])
                else { return nil }
                summary.withheld[id] = since
                position += 3
            default:
                return nil
            }
        }
        return summary
    }

    private static func date(_ date: Date) -> String { JournalWords.date(date) }

    private static func date(_ word: String) -> Date? { JournalWords.date(word.utf8) }
}
