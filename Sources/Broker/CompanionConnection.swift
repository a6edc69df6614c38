import CompanionLink
import FoundationEssentials
import SystemShims

/// One TCP connection of the companion link and where its protocol stands: the handshake, then
/// the session, the bytes waiting to be sent (bounded: more is produced only when they drain),
/// and the replication cursors of this connection. Used on the link's thread only.
final class CompanionConnection {
    let socket: FileDescriptor
    /// The peer's address, for log lines and the status.
    let peer: String
    /// The connection attempt has not finished yet (the phone's side).
    var connecting: Bool
    var decoder = FrameDecoder()
    let handshake: Handshake
    var session: LinkSession?
    /// The peer's events as they arrive; made when the session begins.
    var inbound: ReplicationInbound?
    /// Bytes to send, from ``outputStart`` on.
    private(set) var output: [UInt8] = []
    private var outputStart = 0
    let openedAt: ContinuousClock.Instant
    var lastHeard: ContinuousClock.Instant
    var lastSent: ContinuousClock.Instant
    /// The next of this side's outbox sequences to send; set by the peer's `resume`.
    var nextToSend: UInt64?

    init(socket: consuming FileDescriptor, peer: String, connecting: Bool, handshake: Handshake) {
        self.socket = socket
        self.peer = peer
        self.connecting = connecting
        self.handshake = handshake
        openedAt = .now
        lastHeard = .now
        lastSent = .now
        queue(handshake.hello)
    }

    /// Bytes queued and not yet sent.
    var pendingOutput: Int { output.count - outputStart }

    func queue(_ frame: LinkFrame) {
        output += frame.encoded()
    }

    /// Seals `message` into the next frame and queues it.
    func send(_ message: LinkMessage) throws(LinkError) {
        guard let session else { throw .unexpectedFrame(.sealed) }
        queue(try session.seal(message.encoded()))
        lastSent = .now
    }

    /// Sends what the kernel takes now.
    /// - Throws: the send's `errno` (the peer reset the connection).
    func flush() throws(Errno) {
        while outputStart < output.count {
            let start = outputStart
            let sent = try output.withUnsafeBytes { bytes in
                Result { () throws(Errno) in try TCPSocket.send(socket, UnsafeRawBufferPointer(rebasing: bytes[start...])) }
            }.get()
            if sent == 0 { break }
            outputStart += sent
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
        } else if outputStart > 1 << 16 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
    }
}
