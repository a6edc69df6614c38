import CompanionLink
import Testing

/// Frames out of a stream in pieces of any size; garbage, a wrong version, an oversized length
/// and a stream cut inside a frame refused, the oversized one before its body is awaited.
@Suite struct FrameDecoderTests {
    static let frames = [
        LinkFrame(kind: .hello, body: [UInt8](repeating: 7, count: 32)),
        LinkFrame(kind: .proof, body: []),
        LinkFrame(kind: .sealed, body: (0..<300).map { UInt8(truncatingIfNeeded: $0) }),
        LinkFrame(kind: .sealed, body: [UInt8](repeating: 0xee, count: LinkFrame.maximumBodyByteCount)),
    ]

    @Test(arguments: [1, 5, 6, 7, 1000, 1 << 20])
    func framesComeBackWhateverTheReadSize(pieceSize: Int) throws {
        let stream = Self.frames.flatMap { $0.encoded() }
        var decoder = FrameDecoder()
        var decoded: [LinkFrame] = []
        for start in stride(from: 0, to: stream.count, by: pieceSize) {
            decoder.append(stream[start..<min(start + pieceSize, stream.count)])
            while let frame = try decoder.nextFrame() { decoded.append(frame) }
            #expect(decoder.bufferedByteCount <= LinkFrame.headerByteCount + LinkFrame.maximumBodyByteCount + pieceSize)
        }
        #expect(decoded == Self.frames)
        try decoder.finish()
    }

    @Test func theHeaderIsVersionKindAndBigEndianLength() {
        #expect(LinkFrame(kind: .sealed, body: [9, 9]).encoded() == [1, 3, 0, 0, 0, 2, 9, 9])
    }

    @Test(arguments: [
        ([UInt8(0x47), 0x45, 0x54, 0x20], LinkError.unsupportedVersion(0x47)), // "GET "
        ([2, 1, 0, 0, 0, 0], .unsupportedVersion(2)),
        ([1, 0], .unknownFrameKind(0)),
        ([1, 4, 0, 0, 0, 0], .unknownFrameKind(4)),
        ([1, 3, 0, 1, 0, 1], .frameTooLong(65_537)),
        ([1, 3, 0xff, 0xff, 0xff, 0xff], .frameTooLong(0xffff_ffff)),
    ])
    func badHeadersAreRefusedAtOnceAndForever(bytes: [UInt8], expected: LinkError) {
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect(throws: expected) { try decoder.nextFrame() }
        #expect(decoder.bufferedByteCount == 0)
        // A good frame after the garbage is not accepted: the connection is over.
        decoder.append(LinkFrame(kind: .hello, body: []).encoded())
        #expect(throws: expected) { try decoder.nextFrame() }
        #expect(throws: expected) { try decoder.finish() }
    }

    @Test func aStreamEndingInsideAFrameIsTruncated() throws {
        let encoded = LinkFrame(kind: .sealed, body: [1, 2, 3, 4]).encoded()
        for count in 1..<encoded.count {
            var decoder = FrameDecoder()
            decoder.append(encoded.prefix(count))
            #expect(try decoder.nextFrame() == nil)
            #expect(throws: LinkError.truncatedFrame(bufferedByteCount: count)) { try decoder.finish() }
        }
        var empty = FrameDecoder()
        #expect(try empty.nextFrame() == nil)
        try empty.finish()
    }
}
