import Cryptography
import Synchronization

/// The two directions of an authenticated connection after the handshake: payloads sealed into
/// frames for the peer, and the peer's frames opened back into payloads.
///
/// No nonce is ever used twice under one key: each direction has its own key, made for this
/// connection alone (``Handshake`` derives it from both sides' fresh nonces), and each frame's
/// AEAD nonce is that direction's 64-bit frame counter, which starts at 0, goes up by one per frame
/// under a lock, is never reset within a session and never wraps (``LinkError/counterExhausted``).
/// The counter is not sent: the receiver opens each frame under the counter it expects next, so a
/// frame modified, replayed, reordered or lost before it fails to authenticate. A connection cut
/// between two frames looks like a peer with nothing more to send: the replication above
/// acknowledges what arrived, so nothing unacknowledged counts as delivered.
///
/// After a frame fails to open, every later one is refused too: the connection is over. The
/// session may be shared between a reading and a writing task.
public final class LinkSession: Sendable {
    private struct Direction: Sendable {
        var counter: UInt64 = 0
        var failed = false
    }

    private let sendingCipher: ChaCha20Poly1305
    private let receivingCipher: ChaCha20Poly1305
    private let sending: Mutex<Direction>
    private let receiving: Mutex<Direction>

    /// The longest payload one frame can carry.
    public static let maximumPayloadByteCount = LinkFrame.maximumBodyByteCount - ChaCha20Poly1305.tagByteCount

    /// A session whose counters start at `firstCounter` (0; tests start near the end).
    init(sending: ChaCha20Poly1305, receiving: ChaCha20Poly1305, firstCounter: UInt64 = 0) {
        sendingCipher = sending
        receivingCipher = receiving
        self.sending = Mutex(Direction(counter: firstCounter))
        self.receiving = Mutex(Direction(counter: firstCounter))
    }

    /// The 12-byte AEAD nonce of frame `counter`: four zero bytes, then the counter big-endian.
    private static func nonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) }
    }

    /// `payload` sealed into the next frame of this side's direction.
    /// - Throws: ``LinkError/payloadTooLong(_:)``; ``LinkError/counterExhausted``.
    public func seal(_ payload: some Collection<UInt8>) throws(LinkError) -> LinkFrame {
        guard payload.count <= Self.maximumPayloadByteCount else { throw .payloadTooLong(payload.count) }
        let header = LinkFrame.header(kind: .sealed, bodyByteCount: payload.count + ChaCha20Poly1305.tagByteCount)
        return try sending.withLock { direction throws(LinkError) in
            guard direction.counter < UInt64.max else { throw .counterExhausted }
            // The nonce is 12 bytes, so sealing cannot fail.
            let body = try! sendingCipher.seal(payload, nonce: Self.nonce(direction.counter), authenticating: header)
            direction.counter += 1
            return LinkFrame(kind: .sealed, body: body)
        }
    }

    /// The payload of the peer's next frame.
    /// - Throws: ``LinkError/authenticationFailed`` for a frame that does not open under the next
    ///   counter (and for every frame after one that did not); ``LinkError/unexpectedFrame(_:)``
    ///   for a hello or proof.
    public func open(_ frame: LinkFrame) throws(LinkError) -> [UInt8] {
        try receiving.withLock { direction throws(LinkError) in
            guard !direction.failed else { throw .authenticationFailed }
            guard frame.kind == .sealed else {
                direction.failed = true
                throw .unexpectedFrame(frame.kind)
            }
            guard direction.counter < UInt64.max,
                let payload = try? receivingCipher.open(frame.body, nonce: Self.nonce(direction.counter), authenticating: frame.header)
            else {
                direction.failed = true
                throw .authenticationFailed
            }
            direction.counter += 1
            return payload
        }
    }
}
