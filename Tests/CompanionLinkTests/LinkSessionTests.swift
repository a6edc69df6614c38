import Cryptography
import TestSupport
import Testing

@testable import CompanionLink

/// A session refuses a frame modified anywhere, replayed, reordered, dropped before it, sent
/// back to its sender, or of another kind, and refuses everything after the first refusal.
@Suite struct LinkSessionTests {
    static func sessions() throws -> (phone: LinkSession, watch: LinkSession) {
        let (initiator, responder) = try HandshakeTests.pair(seed: 11, initiatorKey: HandshakeTests.key, responderKey: HandshakeTests.key)
        let (phone, watch) = try HandshakeTests.run(initiator, responder)
        return (phone, watch)
    }

    static let events = (0..<4).map { Array("event \($0)".utf8) }

    /// Every bit of every frame's bytes on the wire, flipped one at a time, ends the connection
    /// (in the decoder, for a header made invalid, or in the session).
    @Test func aModifiedFrameIsRefused() throws {
        let reference = try Self.sessions()
        let wire = try reference.phone.seal(Self.events[0]).encoded()
        for bit in 0..<wire.count * 8 {
            let (phone, watch) = try Self.sessions()
            var tampered = try phone.seal(Self.events[0]).encoded()
            #expect(tampered == wire)
            tampered[bit / 8] ^= 1 << (bit % 8)
            var decoder = FrameDecoder()
            decoder.append(tampered)
            do {
                guard let frame = try decoder.nextFrame() else {
                    // A longer length: the frame never completes, and the stream's end says so.
                    #expect(throws: LinkError.self) { try decoder.finish() }
                    continue
                }
                #expect(throws: LinkError.self) {
                    _ = try watch.open(frame)
                    try decoder.finish()
                }
            } catch {
                // The decoder refused the header (version, kind): also the end of the connection.
            }
        }
    }

    @Test func replayedReorderedAndDroppedFramesAreRefused() throws {
        do {
            let (phone, watch) = try Self.sessions()
            let first = try phone.seal(Self.events[0])
            #expect(try watch.open(first) == Self.events[0])
            #expect(throws: LinkError.authenticationFailed) { try watch.open(first) }
        }
        do {
            let (phone, watch) = try Self.sessions()
            let first = try phone.seal(Self.events[0]), second = try phone.seal(Self.events[1])
            #expect(throws: LinkError.authenticationFailed) { try watch.open(second) }
            // After a refusal even the right frame is refused: the connection is over.
            #expect(throws: LinkError.authenticationFailed) { try watch.open(first) }
        }
        do {
            let (phone, watch) = try Self.sessions()
            _ = try phone.seal(Self.events[0])
            let second = try phone.seal(Self.events[1])
            #expect(throws: LinkError.authenticationFailed) { try watch.open(second) }
        }
    }

    /// A frame sent back to the side that sealed it does not open: each direction has its own key.
    @Test func aFrameReflectedToItsSenderIsRefused() throws {
        let (phone, _) = try Self.sessions()
        let frame = try phone.seal(Self.events[0])
        #expect(throws: LinkError.authenticationFailed) { try phone.open(frame) }
    }

    @Test func handshakeFramesAfterTheHandshakeAreRefused() throws {
        let (phone, watch) = try Self.sessions()
        #expect(throws: LinkError.unexpectedFrame(.hello)) { try watch.open(LinkFrame(kind: .hello, body: [UInt8](repeating: 0, count: 32))) }
        #expect(throws: LinkError.authenticationFailed) { try watch.open(phone.seal(Self.events[0])) }
    }

    @Test func payloadsUpToTheBoundAreSealed() throws {
        let (phone, watch) = try Self.sessions()
        let largest = [UInt8](repeating: 0x42, count: LinkSession.maximumPayloadByteCount)
        let frame = try phone.seal(largest)
        #expect(frame.body.count == LinkFrame.maximumBodyByteCount)
        #expect(try watch.open(frame) == largest)
        #expect(throws: LinkError.payloadTooLong(LinkSession.maximumPayloadByteCount + 1)) {
            try phone.seal(largest + [0])
        }
        #expect(try watch.open(phone.seal([UInt8]())) == [])
    }

    /// The same payload sealed 200 times from four tasks at once gives 200 different frames: the
    /// counter is taken under the lock, so no two frames share a nonce (two that did would be equal).
    @Test func concurrentSealingNeverRepeatsANonce() async throws {
        let (phone, _) = try Self.sessions()
        let bodies = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask { try (0..<50).map { _ in try phone.seal(Self.events[0]).body } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(bodies.count == 200)
        #expect(Set(bodies).count == 200)
    }
}

/// The last counter: the frame sealed under 2⁶⁴ − 2 is the last; the next is refused rather than
/// wrapping to a nonce already used.
@Suite struct LinkCounterTests {
    @Test func theCounterNeverWraps() throws {
        let keys = (0..<2).map { index in try! ChaCha20Poly1305(key: [UInt8](repeating: UInt8(index), count: 32)) }
        let phone = LinkSession(sending: keys[0], receiving: keys[1], firstCounter: UInt64.max - 1)
        let watch = LinkSession(sending: keys[1], receiving: keys[0], firstCounter: UInt64.max - 1)
        #expect(try watch.open(phone.seal([1])) == [1])
        #expect(throws: LinkError.counterExhausted) { try phone.seal([2]) }
        #expect(throws: LinkError.counterExhausted) { try phone.seal([2]) }
    }
}
