import Dispatch
import StoreKitFormats
import Synchronization

/// Decodes a journal's event and fact records ahead of the replay, on all cores, a window of
/// records at a time, and hands each reading to the replay in the order it asks.
///
/// Decoding is most of a restart's work, and a record's reading depends on nothing but its bytes
/// and the signature policy, so reading it early changes nothing. What the replay does with each
/// reading (insert it, keep the line unread, refuse it as damage) stays its decision, made in
/// journal order on its own thread. The window bounds how many readings are held at once.
struct ReplayDecoder {
    /// What a record reads as: `nil` when it does not decode.
    enum Reading: Sendable {
        case event(KeptLine.Reading?)
        case fact(StoreEvent?)
        /// A record of another kind, which the replay reads itself.
        case other

        /// The fact of a fact record; `nil` when it does not decode.
        var fact: StoreEvent? { if case .fact(let fact) = self { fact } else { nil } }
    }

    /// Records decoded at once: enough to keep every core busy, few enough that the readings
    /// held stay small beside the facts they become.
    static let windowSize = 4096

    private let records: [JournalRecord]
    private let signatures: SignaturePolicy
    private var window = 0..<0
    private var readings: [Reading] = []

    init(_ records: [JournalRecord], signatures: SignaturePolicy) {
        (self.records, self.signatures) = (records, signatures)
    }

    /// The reading of `records[position]`, decoding its window first when it is not decoded yet;
    /// asked for once (the decoder keeps no copy).
    mutating func reading(at position: Int) -> Reading {
        if !window.contains(position) { decodeWindow(startingAt: position) }
        var reading = Reading.other
        swap(&reading, &readings[position - window.lowerBound])
        return reading
    }

    private mutating func decodeWindow(startingAt start: Int) {
        let (records, signatures) = (self.records, self.signatures)
        let window = start..<min(records.count, start + Self.windowSize)
        let parts = max(1, min(InboxDecoder.onlineProcessors, window.count))
        let partSize = (window.count + parts - 1) / parts
        let decoded = Mutex([[Reading]](repeating: [], count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let lower = window.lowerBound + part * partSize
            let readings = records[lower..<min(window.upperBound, lower + partSize)].map { Self.reading($0, signatures) }
            decoded.withLock { $0[part] = readings }
        }
        self.window = window
        readings = decoded.withLock { $0.flatMap { $0 } }
    }

    private static func reading(_ record: JournalRecord, _ signatures: SignaturePolicy) -> Reading {
        switch record.kind {
        case .event: .event(try? KeptLine.reading(record.payload, signatures: signatures))
        // A fact was checked when first accepted: read without the signature policy.
        case .fact: .fact(try? EventDecoder.fact(line: record.payload))
        default: .other
        }
    }
}
