/// Why the companion link refused what it received or was asked to send. Every case ends the
/// connection: the caller logs ``description`` (one line) and closes it; nothing received in the
/// frame that failed is used.
public enum LinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A frame's first byte is not ``LinkFrame/version``: another protocol, another version, or
    /// garbage.
    case unsupportedVersion(UInt8)
    /// A frame's kind byte is none of ``LinkFrame/Kind``.
    case unknownFrameKind(UInt8)
    /// A frame announced a body longer than ``LinkFrame/maximumBodyByteCount``.
    case frameTooLong(Int)
    /// A frame's body does not have the size its kind requires.
    case malformedFrame(LinkFrame.Kind, byteCount: Int)
    /// A frame arrived that this point of the protocol does not allow (a sealed frame before the
    /// handshake ended, a second hello, anything after a failure).
    case unexpectedFrame(LinkFrame.Kind)
    /// The peer's proof of the pairing key is wrong: it holds another key (or none).
    case wrongPairingKey
    /// A sealed frame did not authenticate under the session key and the next expected counter:
    /// it was modified, replayed, reordered, or a frame before it was lost.
    case authenticationFailed
    /// The byte stream ended inside a frame.
    case truncatedFrame(bufferedByteCount: Int)
    /// A direction of a session has sealed 2⁶⁴ − 1 frames; its counter may not wrap (a new
    /// connection makes new keys).
    case counterExhausted
    /// A pairing key or a handshake nonce is not 32 bytes.
    case wrongSecretSize(expected: Int, actual: Int)
    /// A payload too long for one sealed frame.
    case payloadTooLong(Int)
    /// An opened payload is not a message of the replication protocol, or breaks its order.
    case malformedMessage(String)
    /// The peer did not finish the handshake in time (a slow or silent peer).
    case handshakeTimedOut
    /// Nothing authenticated arrived from the peer for too long (a half-open link).
    case peerSilent(seconds: Int)

    public var description: String {
        switch self {
        case .unsupportedVersion(let version): "frame of unsupported version \(version) (expected \(LinkFrame.version))"
        case .unknownFrameKind(let kind): "frame of unknown kind \(kind)"
        case .frameTooLong(let count): "frame body of \(count) bytes (at most \(LinkFrame.maximumBodyByteCount))"
        case .malformedFrame(let kind, let count): "\(kind) frame body of \(count) bytes"
        case .unexpectedFrame(let kind): "unexpected \(kind) frame"
        case .wrongPairingKey: "the peer's proof of the pairing key is wrong (another key?)"
        case .authenticationFailed: "a sealed frame did not authenticate (modified, replayed, reordered or lost frame)"
        case .truncatedFrame(let count): "connection ended inside a frame (\(count) bytes buffered)"
        case .counterExhausted: "frame counter exhausted; the connection must be renewed"
        case .wrongSecretSize(let expected, let actual): "secret of \(actual) bytes (expected \(expected))"
        case .payloadTooLong(let count): "payload of \(count) bytes is too long for one frame"
        case .malformedMessage(let problem): "malformed message: \(problem)"
        case .handshakeTimedOut: "the peer did not complete the handshake in time"
        case .peerSilent(let seconds): "nothing heard from the peer for \(seconds) s (half-open link?)"
        }
    }
}
