import CompanionLink
import Cryptography
import TestSupport
import Testing

/// Two sides prove the pairing key to each other and get sessions that talk both ways; a wrong
/// key, a reflected proof, frames out of turn or malformed end the handshake.
@Suite struct HandshakeTests {
    static func randomBytes(_ count: Int, _ random: inout SplitMix) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// The frames the two sides exchange until both have a session (or one refuses).
    static func run(_ initiator: Handshake, _ responder: Handshake) throws(LinkError) -> (LinkSession, LinkSession) {
        // Both hellos cross; each answers the other's with its proof; each checks the other's proof.
        let toResponder = try initiator.receive(responder.hello)
        let toInitiator = try responder.receive(initiator.hello)
        #expect(toResponder.session == nil && toInitiator.session == nil)
        #expect(toResponder.send.map(\.kind) == [.proof] && toInitiator.send.map(\.kind) == [.proof])
        let initiatorDone = try initiator.receive(toInitiator.send[0])
        let responderDone = try responder.receive(toResponder.send[0])
        #expect(initiatorDone.send.isEmpty && responderDone.send.isEmpty)
        guard let a = initiatorDone.session, let b = responderDone.session else { throw .wrongPairingKey }
        return (a, b)
    }

    static func pair(seed: UInt64, initiatorKey: [UInt8], responderKey: [UInt8]) throws -> (Handshake, Handshake) {
        var random = SplitMix(seed: seed)
        return (
            try Handshake(role: .initiator, pairingKey: SecretBytes(initiatorKey), nonce: randomBytes(32, &random)),
            try Handshake(role: .responder, pairingKey: SecretBytes(responderKey), nonce: randomBytes(32, &random))
        )
    }

    static let key = (0..<32).map { UInt8($0 ^ 0x5a) }

    @Test func theSameKeyGivesSessionsThatTalkBothWays() throws {
        let (initiator, responder) = try Self.pair(seed: 1, initiatorKey: Self.key, responderKey: Self.key)
        let (phone, watch) = try Self.run(initiator, responder)
        for index in 0..<3 {
            let event = Array("purchase \(index)".utf8)
            #expect(try watch.open(phone.seal(event)) == event)
            #expect(try phone.open(watch.seal(event + [1])) == event + [1])
        }
        // The payload is not in the clear.
        let frame = try phone.seal(Array("a secret purchase".utf8))
        #expect(!frame.body.indices.contains { frame.body[$0...].starts(with: Array("secret".utf8)) })
    }

    /// A finished handshake gives no second session (which would reuse its keys from counter 0).
    @Test func aHandshakeGivesItsSessionOnce() throws {
        let (initiator, responder) = try Self.pair(seed: 7, initiatorKey: Self.key, responderKey: Self.key)
        let toResponder = try initiator.receive(responder.hello)
        let toInitiator = try responder.receive(initiator.hello)
        #expect(try initiator.receive(toInitiator.send[0]).session != nil)
        #expect(throws: LinkError.unexpectedFrame(.proof)) { try initiator.receive(toInitiator.send[0]) }
        #expect(try responder.receive(toResponder.send[0]).session != nil)
        #expect(throws: LinkError.unexpectedFrame(.hello)) { try responder.receive(initiator.hello) }
    }

    @Test func aWrongKeyIsRefusedByBothSides() throws {
        var otherKey = Self.key
        otherKey[0] ^= 1
        let (initiator, responder) = try Self.pair(seed: 2, initiatorKey: Self.key, responderKey: otherKey)
        let toResponder = try initiator.receive(responder.hello)
        let toInitiator = try responder.receive(initiator.hello)
        #expect(throws: LinkError.wrongPairingKey) { try initiator.receive(toInitiator.send[0]) }
        #expect(throws: LinkError.wrongPairingKey) { try responder.receive(toResponder.send[0]) }
        // And nothing after: the handshake is over.
        #expect(throws: LinkError.unexpectedFrame(.proof)) { try responder.receive(toResponder.send[0]) }
    }

    /// A side's own proof sent back to it (a peer without the key echoing) is refused: each role
    /// proves under its own label.
    @Test func aReflectedProofIsRefused() throws {
        var random = SplitMix(seed: 3)
        let responder = try Handshake(role: .responder, pairingKey: SecretBytes(Self.key), nonce: Self.randomBytes(32, &random))
        // The attacker echoes the responder's nonce as its hello, then its proof.
        let answer = try responder.receive(responder.hello)
        #expect(throws: LinkError.wrongPairingKey) { try responder.receive(answer.send[0]) }
    }

    @Test func framesOutOfTurnOrMalformedAreRefused() throws {
        func fresh() throws -> Handshake {
            var random = SplitMix(seed: 4)
            return try Handshake(role: .initiator, pairingKey: SecretBytes(Self.key), nonce: Self.randomBytes(32, &random))
        }
        let early = try fresh()
        #expect(throws: LinkError.unexpectedFrame(.proof)) { try early.receive(LinkFrame(kind: .proof, body: [UInt8](repeating: 0, count: 32))) }
        let sealedFirst = try fresh()
        #expect(throws: LinkError.unexpectedFrame(.sealed)) { try sealedFirst.receive(LinkFrame(kind: .sealed, body: [UInt8](repeating: 0, count: 40))) }
        let shortHello = try fresh()
        #expect(throws: LinkError.malformedFrame(.hello, byteCount: 31)) { try shortHello.receive(LinkFrame(kind: .hello, body: [UInt8](repeating: 0, count: 31))) }
        let twoHellos = try fresh()
        _ = try twoHellos.receive(LinkFrame(kind: .hello, body: [UInt8](repeating: 1, count: 32)))
        #expect(throws: LinkError.unexpectedFrame(.hello)) { try twoHellos.receive(LinkFrame(kind: .hello, body: [UInt8](repeating: 1, count: 32))) }
        let longProof = try fresh()
        _ = try longProof.receive(LinkFrame(kind: .hello, body: [UInt8](repeating: 1, count: 32)))
        #expect(throws: LinkError.malformedFrame(.proof, byteCount: 33)) { try longProof.receive(LinkFrame(kind: .proof, body: [UInt8](repeating: 0, count: 33))) }
    }

    @Test func secretsOfTheWrongSizeAreRefused() {
        #expect(throws: LinkError.wrongSecretSize(expected: 32, actual: 16)) {
            try Handshake(role: .initiator, pairingKey: SecretBytes([UInt8](repeating: 1, count: 16)), nonce: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: LinkError.wrongSecretSize(expected: 32, actual: 8)) {
            try Handshake(role: .initiator, pairingKey: SecretBytes(Self.key), nonce: [UInt8](repeating: 0, count: 8))
        }
    }

    /// Each connection has keys of its own: a frame recorded on one connection does not open on
    /// the next, though the key is the same.
    @Test func aFrameFromAnEarlierConnectionDoesNotOpen() throws {
        let (i1, r1) = try Self.pair(seed: 5, initiatorKey: Self.key, responderKey: Self.key)
        let (phone1, _) = try Self.run(i1, r1)
        let (i2, r2) = try Self.pair(seed: 6, initiatorKey: Self.key, responderKey: Self.key)
        let (_, watch2) = try Self.run(i2, r2)
        let recorded = try phone1.seal(Array("refund".utf8))
        #expect(throws: LinkError.authenticationFailed) { try watch2.open(recorded) }
    }
}
