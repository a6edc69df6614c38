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
        let utf8 = Array(text.utf8)
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("JWS has \(parts.count) part\(parts.count == 1 ? "" : "s"), expected 3") }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (name, part) in zip(names, parts) {
            guard let bytes = Base64.decode(url: String(decoding: part, as: UTF8.self)) else {
                throw .malformed("JWS \(name) is not base64url")
            }
            decoded.append(bytes)
        }
        header = decoded[0]
        payload = decoded[1]
        signature = decoded[2]
        signingInput = Array(utf8[..<parts[1].endIndex])
        encodedHeaderCount = parts[0].count
    }
}
