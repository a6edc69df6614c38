import CompanionLink
import Testing

/// The replication protocol inside sealed frames: messages round-trip, malformed ones are
/// refused, and the receiver hands each next event on once, reassembled, refusing gaps.
@Suite struct ReplicationTests {
    static let messages: [LinkMessage] = [
        .resume(received: 0), .resume(received: .max), .ack(through: 42), .heartbeat,
        .event(sequence: 1, final: true, bytes: Array("{}".utf8)), .event(sequence: 7, final: false, bytes: []),
    ]

    @Test(arguments: messages)
    func messagesRoundTrip(message: LinkMessage) throws {
        #expect(try LinkMessage(decoding: message.encoded()) == message)
    }

    @Test(arguments: [[], [0], [1, 0], [2, 0, 0, 0, 0, 0, 0, 0, 1, 2], [3] + [UInt8](repeating: 0, count: 9), [4, 0], [9]] as [[UInt8]])
    func malformedMessagesAreRefused(bytes: [UInt8]) {
        #expect(throws: LinkError.self) { try LinkMessage(decoding: bytes) }
    }

    @Test func aLongLineTravelsInChunksThatEachFitAFrame() throws {
        let line = (0..<(3 * LinkMessage.maximumChunkByteCount + 5)).map { UInt8(truncatingIfNeeded: $0) }
        let chunks = LinkMessage.chunks(of: line, sequence: 3)
        #expect(chunks.count == 4)
        var inbound = ReplicationInbound(received: 2, maximumLineByteCount: 1 << 20)
        var delivered: [(UInt64, [UInt8])] = []
        for chunk in chunks {
            #expect(chunk.encoded().count <= LinkSession.maximumPayloadByteCount)
            guard case .event(let sequence, let final, let bytes) = chunk else { continue }
            if let event = try inbound.receive(sequence: sequence, final: final, bytes: bytes) { delivered.append(event) }
        }
        #expect(delivered.count == 1 && delivered[0].0 == 3 && delivered[0].1 == line)
        #expect(inbound.received == 3)
    }

    @Test func repeatsAreDroppedAndGapsRefused() throws {
        var inbound = ReplicationInbound(received: 5, maximumLineByteCount: 100)
        #expect(try inbound.receive(sequence: 4, final: true, bytes: [1]) == nil)
        #expect(try inbound.receive(sequence: 5, final: true, bytes: [1]) == nil)
        #expect(try inbound.receive(sequence: 6, final: true, bytes: [6])?.line == [6])
        #expect(throws: LinkError.self) { try inbound.receive(sequence: 8, final: true, bytes: [8]) }
    }

    @Test func aLineOverTheBoundIsRefusedBeforeItIsWhole() throws {
        var inbound = ReplicationInbound(received: 0, maximumLineByteCount: 10)
        #expect(try inbound.receive(sequence: 1, final: false, bytes: [UInt8](repeating: 1, count: 8)) == nil)
        #expect(throws: LinkError.self) { try inbound.receive(sequence: 1, final: false, bytes: [1, 2, 3]) }
    }
}
