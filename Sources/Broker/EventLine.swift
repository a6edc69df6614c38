import Entitlements
import StoreKitFormats
import FoundationEssentials

/// Decoding and catalog validation of one JSON line, shared by `ingest` (before queueing) and
/// the daemon (before journaling).
package enum EventLine {
    /// Largest accepted line (bytes).
    package static let maximumLength = 1 << 20

    /// Decodes `line` and checks every event against `catalog` (bundle id, environment).
    /// Throws ``BrokerError/badInput(_:)`` with `problem` only; callers prefix the file and line.
    package static func decode(_ line: String, catalog: Catalog) throws(BrokerError) -> [StoreEvent] {
        guard line.utf8.count <= maximumLength else {
            throw .badInput("line of \(line.utf8.count) bytes exceeds the \(maximumLength)-byte limit")
        }
        let events: [StoreEvent]
        do { events = try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures) } catch { throw .badInput("\(error)") }
        for event in events {
            do { try catalog.validate(event) } catch { throw .badInput("\(error)") }
        }
        return events
    }

    /// Decodes every non-blank line of `lines`, all or nothing: the first bad line — malformed,
    /// refused by the catalog, over the size cap, or contradicting an earlier line about the same
    /// `transactionId` (see ``TransactionConflicts``) — throws ``BrokerError/badInput(_:)``
    /// naming `source:line` and the problem.
    package static func decodeAll(_ lines: [String], source: String, catalog: Catalog) throws(BrokerError) -> [Decoded] {
        try decodeAll(lines, source: source) { line throws(BrokerError) in Decoded(line: line, events: try decode(line, catalog: catalog)) }
    }

    /// Every non-blank line of `lines` as the daemon keeps it (``KeptLine``), all or nothing like
    /// ``decodeAll(_:source:catalog:)``: a line is refused only when no catalog could read it (or
    /// it is over the size cap, or contradicts an earlier line); one of another app or
    /// environment is read, and one `signatures` does not read is kept unread
    /// (``Decoded/isRead`` `false`).
    package static func keptAll(_ lines: [String], source: String, signatures: SignaturePolicy) throws(BrokerError) -> [Decoded] {
        try decodeAll(lines, source: source) { line throws(BrokerError) in
            do {
                switch try KeptLine.reading(line.utf8, signatures: signatures) {
                case .read(let events): return Decoded(line: line, events: events)
                case .unread(let events): return Decoded(line: line, events: events, isRead: false)
                }
            } catch {
                throw .badInput("\(error)")
            }
        }
    }

    /// The loop of ``decodeAll(_:source:catalog:)``, each trimmed non-blank line read by `read`.
    private static func decodeAll(
        _ lines: [String], source: String, read: (String) throws(BrokerError) -> Decoded
    ) throws(BrokerError) -> [Decoded] {
        var decoded: [Decoded] = []
        var conflicts = TransactionConflicts()
        for (index, line) in lines.enumerated() {
            // Refuse an oversized line before trimming it: trimming 16 MiB costs seconds.
            guard line.utf8.count <= maximumLength else {
                throw .badInput("\(source):\(index + 1): line of \(line.utf8.count) bytes exceeds the \(maximumLength)-byte limit")
            }
            let trimmed = trimmed(line)
            guard !trimmed.isEmpty else { continue }
            do {
                let kept = try read(trimmed)
                try conflicts.check(kept.events, line: index + 1)
                decoded.append(kept)
            } catch {
                throw .badInput("\(source):\(index + 1): \(error)")
            }
        }
        return decoded
    }

    /// A line kept by ``decodeAll(_:source:catalog:)`` (as trimmed) and its events. A struct, not
    /// a tuple: a tuple's metadata, and its array's, would be built at every ingest's first decode.
    package struct Decoded: Sendable {
        package var line: String
        package var events: [StoreEvent]
        /// Whether the catalog's signature policy reads the line; when `false` (``keptAll(_:source:signatures:)``)
        /// the line is kept as it is and its events are not applied.
        package var isRead = true
    }

    /// `line` without leading and trailing whitespace. A line that starts and ends with a
    /// printable ASCII byte (every line the broker writes) is returned as it is: Foundation's
    /// Unicode trimming costs more per line than the rest of an ingest's decoding.
    static func trimmed(_ line: String) -> String {
        let utf8 = line.utf8
        if let first = utf8.first, let last = utf8.last, isPrintableASCII(first), isPrintableASCII(last) { return line }
        let start = line.firstIndex { !$0.isWhitespace } ?? line.endIndex
        let end = line.lastIndex { !$0.isWhitespace }.map(line.index(after:)) ?? start
        return String(line[start..<max(start, end)])
    }

    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
