/// The one reading of a PEM file (RFC 7468): base64 lines between `-----BEGIN LABEL-----` and
/// `-----END LABEL-----`, line ends LF or CRLF, nothing but white space around them.
enum PEMBlock {
    /// The DER bytes of the one `label` block in `bytes`; `nil` when `bytes` does not begin (after
    /// white space) with that block's first line, so the caller reads them as DER.
    /// - Throws: ``X509Error`` when the block is not exactly one, or not base64.
    static func der(_ bytes: [UInt8], label: String) throws(X509Error) -> [UInt8]? {
        let begin = Array("-----BEGIN \(label)-----".utf8), end = Array("-----END \(label)-----".utf8)
        let text = bytes.drop { isWhitespace($0) }
        guard text.starts(with: begin) else { return nil }
        let lines = text.split(omittingEmptySubsequences: true) { $0 == UInt8(ascii: "\n") }
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
            .filter { !$0.allSatisfy(isWhitespace) }
        guard lines.count >= 3, Array(lines[0]) == begin, Array(lines[lines.count - 1]) == end else {
            throw X509Error(problem: "PEM: not exactly one \(label) block")
        }
        let body = lines.dropFirst().dropLast().flatMap { $0 }
        guard let der = Base64.decode(standard: String(decoding: body, as: UTF8.self)) else {
            throw X509Error(problem: "PEM: the \(label) block is not base64")
        }
        return der
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
