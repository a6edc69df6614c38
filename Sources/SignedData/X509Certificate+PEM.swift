extension X509Certificate {
    /// A certificate file's contents: DER, or PEM holding exactly one `CERTIFICATE` block (RFC
    /// 7468: base64 lines between `-----BEGIN CERTIFICATE-----` and `-----END CERTIFICATE-----`,
    /// line ends LF or CRLF, nothing but white space around it).
    /// - Throws: ``X509Error`` when it is neither, or the certificate inside is malformed.
    public init(fileContents: some Collection<UInt8>) throws(X509Error) {
        let bytes = Array(fileContents)
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        let text = bytes.drop { Self.isWhitespace($0) }
        guard text.starts(with: begin) else {
            try self.init(der: bytes)
            return
        }
        let lines = text.split(omittingEmptySubsequences: true) { $0 == UInt8(ascii: "\n") }
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
            .filter { !$0.allSatisfy(Self.isWhitespace) }
        guard lines.count >= 3, Array(lines[0]) == begin, Array(lines[lines.count - 1]) == end else {
            throw X509Error(problem: "PEM: not exactly one CERTIFICATE block")
        }
        let body = lines.dropFirst().dropLast().flatMap { $0 }
        guard let der = Base64.decode(standard: String(decoding: body, as: UTF8.self)) else {
            throw X509Error(problem: "PEM: the CERTIFICATE block is not base64")
        }
        try self.init(der: der)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
