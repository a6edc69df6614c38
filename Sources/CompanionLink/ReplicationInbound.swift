/// The receiving half of replication on one side, a pure state machine: it takes the peer's
/// event messages in order, puts chunked lines back together, drops what it already holds and
/// refuses a gap, so that what it hands on is each next event exactly once per connection.
///
/// `received` is the last sequence held durably (the caller persists it and starts a new
/// connection's receiver from it); an event at or below it is a repeat, one past the next
/// expected a gap (the protocol was broken: the connection ends).
public struct ReplicationInbound: Sendable {
    /// The last sequence whose event was handed on (``receive(_:)``).
    public private(set) var received: UInt64
    private var partial: (sequence: UInt64, bytes: [UInt8])?
    /// The longest event line accepted, in bytes: a peer cannot make this side hold more.
    public let maximumLineByteCount: Int

    public init(received: UInt64, maximumLineByteCount: Int) {
        self.received = received
        self.maximumLineByteCount = maximumLineByteCount
    }

    /// Takes an event message; returns the line of a complete new event and its sequence, or nil
    /// (a chunk of one still arriving, or a repeat).
    /// - Throws: ``LinkError/malformedMessage(_:)`` for a gap, an interleaved chunk or a line
    ///   over the bound.
    public mutating func receive(sequence: UInt64, final: Bool, bytes: [UInt8]) throws(LinkError) -> (sequence: UInt64, line: [UInt8])? {
        if sequence <= received {
            guard partial == nil else { throw .malformedMessage("event \(sequence) inside the chunks of event \(partial!.sequence)") }
            return nil
        }
        guard sequence == received + 1 else { throw .malformedMessage("event \(sequence) after \(received): events were skipped") }
        var line = partial.map { $0.bytes } ?? []
        line += bytes
        guard line.count <= maximumLineByteCount else { throw .malformedMessage("event \(sequence) is longer than \(maximumLineByteCount) bytes") }
        guard final else {
            partial = (sequence, line)
            return nil
        }
        partial = nil
        received = sequence
        return (sequence, line)
    }
}
