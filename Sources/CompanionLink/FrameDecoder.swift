/// Frames out of a byte stream that arrives in pieces of any size.
///
/// Append what each read returned, then call ``nextFrame()`` until it answers nil. A header is
/// checked (version, kind, length) as soon as its six bytes are in, before any of the body is
/// awaited, so the buffer never holds more than one frame and one read. After a refusal the
/// decoder refuses everything: the connection is over.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var failure: LinkError?

    public init() {}

    /// Bytes received and not yet returned in a frame.
    public var bufferedByteCount: Int { buffer.count }

    /// Adds bytes received from the peer.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil when more bytes are needed.
    /// - Throws: ``LinkError/unsupportedVersion(_:)``, ``LinkError/unknownFrameKind(_:)`` or
    ///   ``LinkError/frameTooLong(_:)``, and the same error again on every later call.
    public mutating func nextFrame() throws(LinkError) -> LinkFrame? {
        if let failure { throw failure }
        do throws(LinkError) {
            guard let first = buffer.first else { return nil }
            guard first == LinkFrame.version else { throw .unsupportedVersion(first) }
            guard buffer.count >= 2 else { return nil }
            guard let kind = LinkFrame.Kind(rawValue: buffer[1]) else { throw .unknownFrameKind(buffer[1]) }
            guard buffer.count >= LinkFrame.headerByteCount else { return nil }
            let length = buffer[2..<6].reduce(0) { $0 << 8 | Int($1) }
            guard length <= LinkFrame.maximumBodyByteCount else { throw .frameTooLong(length) }
            let end = LinkFrame.headerByteCount + length
            guard buffer.count >= end else { return nil }
            let frame = LinkFrame(kind: kind, body: Array(buffer[LinkFrame.headerByteCount..<end]))
            buffer.removeFirst(end)
            return frame
        } catch {
            failure = error
            buffer = []
            throw error
        }
    }

    /// Checks, when the peer closed the stream, that it did not stop inside a frame.
    /// - Throws: ``LinkError/truncatedFrame(bufferedByteCount:)`` if bytes of a frame are left.
    public func finish() throws(LinkError) {
        if let failure { throw failure }
        guard buffer.isEmpty else { throw .truncatedFrame(bufferedByteCount: buffer.count) }
    }
}
