/// One frame of the companion link on the wire: a six-byte header, then the body.
///
/// ```
/// version (1 byte, 1) | kind (1 byte) | body length (4 bytes, big-endian) | body
/// ```
///
/// The body is at most ``maximumBodyByteCount`` bytes, so a reader never buffers more than one
/// frame's worth for a peer, whatever length a peer announces. A sealed frame's header is its
/// AEAD's associated data, so it is authenticated along with the body.
public struct LinkFrame: Equatable, Sendable {
    /// What a frame carries.
    public enum Kind: UInt8, Sendable, CustomStringConvertible {
        /// A side's fresh 32-byte handshake nonce, in the clear.
        case hello = 1
        /// A side's 32-byte proof of the pairing key (an HMAC over the handshake transcript).
        case proof = 2
        /// A payload sealed under the session key for its direction (ciphertext and 16-byte tag).
        case sealed = 3

        public var description: String {
            switch self {
            case .hello: "hello"
            case .proof: "proof"
            case .sealed: "sealed"
            }
        }
    }

    /// The protocol version this module speaks; a frame of any other is refused.
    public static let version: UInt8 = 1
    public static let headerByteCount = 6
    /// The longest body: room for an event with its JWS chain (about 5 KB) many times over, and a
    /// bound on what one connection can make a reader hold.
    public static let maximumBodyByteCount = 64 * 1024

    public var kind: Kind
    public var body: [UInt8]

    /// A frame of `kind` carrying `body` (at most ``maximumBodyByteCount`` bytes; the callers in
    /// this module check sizes first).
    public init(kind: Kind, body: [UInt8]) {
        precondition(body.count <= Self.maximumBodyByteCount, "frame body over the bound")
        self.kind = kind
        self.body = body
    }

    /// The header of a frame of `kind` with a body of `bodyByteCount` bytes.
    static func header(kind: Kind, bodyByteCount: Int) -> [UInt8] {
        [version, kind.rawValue] + UInt32(bodyByteCount).bigEndianBytes
    }

    /// The frame's header.
    public var header: [UInt8] { Self.header(kind: kind, bodyByteCount: body.count) }

    /// The frame's bytes on the wire.
    public func encoded() -> [UInt8] { header + body }
}

extension UInt32 {
    var bigEndianBytes: [UInt8] { [UInt8(truncatingIfNeeded: self >> 24), UInt8(truncatingIfNeeded: self >> 16), UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self)] }
}
