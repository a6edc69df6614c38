import EntitlementModel
import Foundation

/// Decoding and catalog validation of one JSON line, shared by `ingest` (before queueing) and
/// the daemon (before journaling).
public enum EventLine {
    /// Largest accepted line (bytes).
    public static let maximumLength = 1 << 20

    /// Decodes `line` and checks every event against `catalog` (bundle id, environment).
    /// Throws ``BrokerError/badInput(_:)`` with `problem` only; callers prefix the file and line.
    public static func decode(_ line: String, catalog: Catalog) throws(BrokerError) -> [StoreEvent] {
        guard line.utf8.count <= maximumLength else {
            throw .badInput("line of \(line.utf8.count) bytes exceeds the \(maximumLength)-byte limit")
        }
        let events: [StoreEvent]
        do { events = try EventDecoder.decode(line: Data(line.utf8)) } catch { throw .badInput("\(error)") }
        for event in events {
            do { try catalog.validate(event) } catch { throw .badInput("\(error)") }
        }
        return events
    }
}
