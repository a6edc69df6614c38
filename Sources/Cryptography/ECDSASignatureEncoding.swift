/// The two encodings of an ECDSA signature (r, s): raw fixed-width `r || s` (RFC 7515, JWS) and
/// DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (X.509, RFC 3279). Both decoders
/// are strict: anything but the one canonical encoding of two positive integers that fit the
/// curve is refused (nil), so a signature has exactly one accepted spelling.
enum ECDSASignatureEncoding {
    /// r and s as big-endian bytes of exactly `width` bytes each.
    struct Components {
        var r: [UInt8]
        var s: [UInt8]
    }

    /// `r || s`, each exactly `width` bytes.
    static func raw(_ bytes: [UInt8], width: Int) -> Components? {
        guard bytes.count == 2 * width else { return nil }
        return Components(r: Array(bytes[0..<width]), s: Array(bytes[width...]))
    }

    /// A DER SEQUENCE of two INTEGERs, nothing after it; each integer positive, minimally
    /// encoded and at most `width` bytes once its sign byte is dropped.
    static func der(_ bytes: [UInt8], width: Int) -> Components? {
        var reader = Reader(bytes: bytes[...])
        guard let sequence = reader.element(tag: 0x30), reader.isAtEnd else { return nil }
        var fields = Reader(bytes: sequence)
        guard let r = fields.element(tag: 0x02).flatMap({ positiveInteger($0, width: width) }),
            let s = fields.element(tag: 0x02).flatMap({ positiveInteger($0, width: width) }),
            fields.isAtEnd
        else { return nil }
        return Components(r: r, s: s)
    }

    /// The content of a DER INTEGER as exactly `width` big-endian bytes, or nil when it is
    /// empty, negative, not minimal (a leading 0x00 not followed by a byte ≥ 0x80) or too wide.
    private static func positiveInteger(_ content: ArraySlice<UInt8>, width: Int) -> [UInt8]? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        var magnitude = content
        if first == 0 {
            // A lone 0x00 is zero (not positive); 0x00 before a byte below 0x80 is not minimal.
            guard content.count > 1, content[content.startIndex + 1] & 0x80 != 0 else { return nil }
            magnitude = content.dropFirst()
        }
        guard magnitude.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - magnitude.count) + magnitude
    }

    /// Reads DER tag-length-value elements with definite, minimally encoded lengths.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        /// The content of the next element if its tag is `tag` and its length is canonical and
        /// within the remaining bytes.
        mutating func element(tag: UInt8) -> ArraySlice<UInt8>? {
            guard bytes.count >= 2, bytes[bytes.startIndex] == tag else { return nil }
            let first = bytes[bytes.startIndex + 1]
            var offset = bytes.startIndex + 2
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else {
                // Long form: 1 or 2 length bytes (nothing here is near 64 KiB), no leading zero,
                // and only for lengths the short form cannot say.
                let count = Int(first & 0x7F)
                guard count >= 1, count <= 2, bytes.count >= 2 + count, bytes[offset] != 0 else { return nil }
                for _ in 0..<count {
                    length = length << 8 | Int(bytes[offset])
                    offset += 1
                }
                guard length >= 0x80 else { return nil }
            }
            guard bytes.endIndex - offset >= length else { return nil }
            let content = bytes[offset..<offset + length]
            bytes = bytes[(offset + length)...]
            return content
        }
    }
}
