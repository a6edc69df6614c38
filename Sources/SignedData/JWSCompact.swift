/// A JWS in compact serialisation (RFC 7515 §7.1): `header.payload.signature`, each part
/// base64url without padding. Only split and decoded here: the header is JSON the caller reads
/// (its `alg` and `x5c` go to ``JWSVerifier``), and nothing is verified.
public struct JWSCompact: Sendable, Hashable {
    /// The decoded protected header (JSON text, for the caller's JSON reader).
    public let header: [UInt8]
    /// The decoded payload.
    public let payload: [UInt8]
    /// The decoded signature (for ES256, raw `r || s`, 64 bytes).
    public let signature: [UInt8]
    /// What was signed: the ASCII bytes of `header.payload` as they appeared.
    public let signingInput: [UInt8]
    /// The header as it appeared (base64url text): the start of ``signingInput``, up to the dot.
    public var encodedHeader: ArraySlice<UInt8> { signingInput[..<encodedHeaderCount] }
    private let encodedHeaderCount: Int

    /// Splits and decodes `text`.
    /// - Throws: ``JWSFailure/malformed(_:)`` naming the part that is wrong.
    public init(_ text: some StringProtocol) throws(JWSFailure) {
        try self.init(utf8: text.utf8)
    }

    /// Splits and decodes the UTF-8 bytes of a JWS, in place when they are contiguous (an
    /// array, a slice of one, a native string's UTF-8 view): the one copy made is ``signingInput``.
    /// - Throws: ``JWSFailure/malformed(_:)`` naming the part that is wrong.
    public init(utf8 bytes: some Collection<UInt8>) throws(JWSFailure) {
        let parsed = bytes.withContiguousStorageIfAvailable { contiguous in Result { () throws(JWSFailure) in try JWSCompact(contiguous: contiguous) } }
        if let parsed {
            self = try parsed.get()
        } else {
            self = try Array(bytes).withUnsafeBufferPointer { contiguous throws(JWSFailure) in try JWSCompact(contiguous: contiguous) }
        }
    }

    private init(contiguous bytes: UnsafeBufferPointer<UInt8>) throws(JWSFailure) {
        let dot = UInt8(ascii: ".")
        let firstDot = bytes.firstIndex(of: dot)
        let secondDot = firstDot.flatMap { first in bytes[(first + 1)...].firstIndex(of: dot) }
        guard let firstDot, let secondDot, !bytes[(secondDot + 1)...].contains(dot) else {
            let parts = bytes.count(where: { $0 == dot }) + 1
            throw .malformed("JWS has \(parts) part\(parts == 1 ? "" : "s"), expected 3")
        }
        func decoded(_ range: Range<Int>, _ name: String) throws(JWSFailure) -> [UInt8] {
            guard let decoded = Base64.decode(url: UnsafeBufferPointer(rebasing: bytes[range])) else {
                throw .malformed("JWS \(name) is not base64url")
            }
            return decoded
        }
        header = try decoded(0..<firstDot, "header")
        payload = try decoded(firstDot + 1..<secondDot, "payload")
        signature = try decoded(secondDot + 1..<bytes.count, "signature")
        signingInput = Array(UnsafeBufferPointer(rebasing: bytes[..<secondDot]))
        encodedHeaderCount = firstDot
    }
}
