/// What a sealed frame carries once the handshake is over: the replication protocol.
///
/// Each side numbers the events it offers its peer 1, 2, 3... (its outbox), for good: a number
/// names the same event across connections and restarts. On a new session each side first
/// sends ``resume(received:)``, the last number of the peer's it holds durably, and the peer
/// sends from the one after it: a catch-up sends only what the peer lacks. An event travels in
/// one ``event(sequence:final:bytes:)`` message, or in several with the same sequence when its
/// line is longer than a frame (``maximumChunkByteCount``); ``ack(through:)`` says that every
/// event up to a number is durably held (or refused) and need never be sent again.
/// ``heartbeat`` proves the peer is there when nothing else crosses.
///
/// ```
/// resume:    1 | received (8 bytes, big-endian)
/// event:     2 | sequence (8) | final (1: 0 or 1) | bytes
/// ack:       3 | through (8)
/// heartbeat: 4
/// ```
public enum LinkMessage: Equatable, Sendable {
    case resume(received: UInt64)
    case event(sequence: UInt64, final: Bool, bytes: [UInt8])
    case ack(through: UInt64)
    case heartbeat

    /// The most bytes of an event line one message carries, so that it fits one sealed frame.
    public static let maximumChunkByteCount = LinkSession.maximumPayloadByteCount - 10

    /// The message's bytes, for ``LinkSession/seal(_:)``.
    public func encoded() -> [UInt8] {
        switch self {
        case .resume(let received): [1] + received.bigEndianBytes
        case .event(let sequence, let final, let bytes): [2] + sequence.bigEndianBytes + [final ? 1 : 0] + bytes
        case .ack(let through): [3] + through.bigEndianBytes
        case .heartbeat: [4]
        }
    }

    /// The message in `payload` (an opened frame's).
    /// - Throws: ``LinkError/malformedMessage(_:)`` for anything else.
    public init(decoding payload: [UInt8]) throws(LinkError) {
        guard let tag = payload.first else { throw .malformedMessage("empty message") }
        func number(at offset: Int) -> UInt64 { payload[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        switch tag {
        case 1:
            guard payload.count == 9 else { throw .malformedMessage("resume of \(payload.count) bytes") }
            self = .resume(received: number(at: 1))
        case 2:
            guard payload.count >= 10, payload[9] <= 1 else { throw .malformedMessage("malformed event") }
            self = .event(sequence: number(at: 1), final: payload[9] == 1, bytes: Array(payload[10...]))
        case 3:
            guard payload.count == 9 else { throw .malformedMessage("ack of \(payload.count) bytes") }
            self = .ack(through: number(at: 1))
        case 4:
            guard payload.count == 1 else { throw .malformedMessage("heartbeat of \(payload.count) bytes") }
            self = .heartbeat
        default:
            throw .malformedMessage("unknown message \(tag)")
        }
    }

    /// The messages that carry event `sequence`, whose line is `line`: one, or several chunks.
    public static func chunks(of line: [UInt8], sequence: UInt64) -> [LinkMessage] {
        guard line.count > maximumChunkByteCount else { return [.event(sequence: sequence, final: true, bytes: line)] }
        return stride(from: 0, to: line.count, by: maximumChunkByteCount).map { start in
            let end = min(start + maximumChunkByteCount, line.count)
            return .event(sequence: sequence, final: end == line.count, bytes: Array(line[start..<end]))
        }
    }
}

extension UInt64 {
    var bigEndianBytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}
