import Cryptography
import Synchronization

/// One side of the link's handshake, a pure state machine: it is given the frames the peer sent
/// and answers with frames to send, until both sides have proved they hold the pairing key and a
/// ``LinkSession`` is ready.
///
/// Each side sends ``hello`` (its fresh nonce) as soon as the connection is up; on the peer's
/// hello it sends its proof (an HMAC of the transcript of both nonces under the pairing key); on
/// the peer's proof, checked in constant time, the session begins. Nothing but hellos and proofs
/// crosses before that, and a wrong proof, a frame out of turn or a malformed one ends it.
///
/// A handshake is an object, not a value, so that it can give its session only once: a copy
/// that finished too would hold the same keys with counters from zero again.
public final class Handshake: Sendable {
    /// What receiving a frame led to.
    public struct Step: Sendable {
        /// Frames to send now, in order.
        public var send: [LinkFrame]
        /// The session, once the peer's proof was right.
        public var session: LinkSession?
    }

    private enum State: Sendable {
        case awaitingHello
        case awaitingProof(LinkKeySchedule)
        case finished
    }

    public let role: LinkRole
    private let pairingKey: SecretBytes
    private let nonce: [UInt8]
    private let state = Mutex(State.awaitingHello)

    /// A handshake for the side in `role`, holding `pairingKey` (32 bytes), with `nonce`: 32 fresh
    /// random bytes from the kernel, never used for another connection.
    /// - Throws: ``LinkError/wrongSecretSize(expected:actual:)``.
    public init(role: LinkRole, pairingKey: SecretBytes, nonce: [UInt8]) throws(LinkError) {
        guard pairingKey.count == LinkKeySchedule.pairingKeyByteCount else {
            throw .wrongSecretSize(expected: LinkKeySchedule.pairingKeyByteCount, actual: pairingKey.count)
        }
        guard nonce.count == LinkKeySchedule.nonceByteCount else {
            throw .wrongSecretSize(expected: LinkKeySchedule.nonceByteCount, actual: nonce.count)
        }
        self.role = role
        self.pairingKey = pairingKey
        self.nonce = nonce
    }

    /// The first frame to send, as soon as the connection is up.
    public var hello: LinkFrame { LinkFrame(kind: .hello, body: nonce) }

    /// Takes a frame the peer sent.
    /// - Throws: ``LinkError/wrongPairingKey`` when the peer's proof is wrong;
    ///   ``LinkError/unexpectedFrame(_:)`` for a frame out of turn (and for any frame once the
    ///   handshake finished or failed); ``LinkError/malformedFrame(_:byteCount:)`` for a hello or
    ///   proof of the wrong size.
    public func receive(_ frame: LinkFrame) throws(LinkError) -> Step {
        try state.withLock { state throws(LinkError) in try advance(&state, on: frame) }
    }

    private func advance(_ state: inout State, on frame: LinkFrame) throws(LinkError) -> Step {
        let current = state
        state = .finished // a failure below leaves it here: nothing more is accepted
        switch (current, frame.kind) {
        case (.awaitingHello, .hello):
            guard frame.body.count == LinkKeySchedule.nonceByteCount else { throw .malformedFrame(.hello, byteCount: frame.body.count) }
            let schedule = LinkKeySchedule(
                pairingKey: pairingKey,
                initiatorNonce: role == .initiator ? nonce : frame.body,
                responderNonce: role == .initiator ? frame.body : nonce)
            state = .awaitingProof(schedule)
            return Step(send: [LinkFrame(kind: .proof, body: schedule.proof(of: role))], session: nil)
        case (.awaitingProof(let schedule), .proof):
            guard frame.body.count == HMACSHA256.byteCount else { throw .malformedFrame(.proof, byteCount: frame.body.count) }
            guard ConstantTimeComparison.equal(schedule.proof(of: role.peer), frame.body) else { throw .wrongPairingKey }
            let keys = schedule.sessionKeys(for: role)
            return Step(send: [], session: LinkSession(sending: keys.sending, receiving: keys.receiving))
        default:
            throw .unexpectedFrame(frame.kind)
        }
    }
}
