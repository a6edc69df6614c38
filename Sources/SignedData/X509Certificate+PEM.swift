extension X509Certificate {
    /// A certificate file's contents: DER, or PEM holding exactly one `CERTIFICATE` block (RFC
    /// 7468: base64 lines between `-----BEGIN CERTIFICATE-----` and `-----END CERTIFICATE-----`,
    /// line ends LF or CRLF, nothing but white space around it).
    /// - Throws: ``X509Error`` when it is neither, or the certificate inside is malformed.
    public init(fileContents: some Collection<UInt8>) throws(X509Error) {
        let bytes = Array(fileContents)
        try self.init(der: try PEMBlock.der(bytes, label: "CERTIFICATE") ?? bytes)
    }
}
