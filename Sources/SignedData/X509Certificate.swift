import Cryptography

/// An X.509 certificate (RFC 5280) as far as JWS chains from the App Store need one: an ECDSA key
/// on P-256 or P-384, signed with ecdsa-with-SHA256 or ecdsa-with-SHA384, its validity, whether
/// it is a CA, and which extensions it carries.
///
/// Parsing is strict DER (see ``DERReader``) and refuses any certificate this package could not
/// check: other key types or curves, other signature algorithms, an inner signature algorithm
/// that differs from the outer one, a repeated extension. A parsed certificate is not trusted:
/// trust is ``JWSVerifier``'s business.
public struct X509Certificate: Sendable, Hashable {
    /// The certificate's DER bytes, as received.
    public let der: [UInt8]
    /// The `tbsCertificate` element's bytes exactly as signed (header included).
    let signedBytes: [UInt8]
    /// The issuer's signature algorithm and signature value (DER `ECDSA-Sig-Value`).
    let signatureAlgorithm: SignatureAlgorithm
    let signature: [UInt8]
    /// The DER encodings of the issuer and subject names (compared byte for byte).
    let issuer: [UInt8]
    let subject: [UInt8]
    /// Start of validity, in seconds since 1970 (UTC), included.
    public let notBefore: Int64
    /// End of validity, in seconds since 1970 (UTC), included.
    public let notAfter: Int64
    /// The subject's key.
    public let publicKey: ECDSAPublicKey
    /// `basicConstraints` `cA` (false when the extension is absent).
    public let isCertificateAuthority: Bool
    /// The OIDs of the extensions present.
    let extensions: Set<DERObjectIdentifier>

    enum SignatureAlgorithm: Sendable, Hashable {
        case ecdsaWithSHA256, ecdsaWithSHA384
    }

    /// Parses `der`.
    /// - Throws: ``X509Error`` naming the part that is malformed or unsupported.
    public init(der: some Collection<UInt8>) throws(X509Error) {
        let bytes = Array(der)
        do throws(DERError) {
            var outer = DERReader(bytes)
            let certificate = try outer.next(DERReader.sequence, "Certificate")
            try outer.expectEnd("Certificate")
            var body = outer.reader(inside: certificate)
            let tbs = try body.next(DERReader.sequence, "tbsCertificate")
            let outerAlgorithm = try Self.algorithm(&body, "signatureAlgorithm")
            let signature = try body.bitStringBytes("signatureValue")
            try body.expectEnd("Certificate")

            var fields = body.reader(inside: tbs)
            if let version = try fields.optional(0xA0) {
                var inner = fields.reader(inside: version)
                let value = try inner.integer("version")
                try inner.expectEnd("version")
                // Extensions exist only in v3 (value 2); DER omits the v1 default.
                guard value.count == 1, value.first == 2 else { throw DERError("version: only v3 certificates are supported") }
            }
            _ = try fields.integer("serialNumber")
            let innerAlgorithm = try Self.algorithm(&fields, "tbsCertificate.signature")
            guard innerAlgorithm == outerAlgorithm else { throw DERError("signature algorithms inside and outside tbsCertificate differ") }
            let issuer = try fields.next(DERReader.sequence, "issuer")
            let validity = try fields.next(DERReader.sequence, "validity")
            var times = fields.reader(inside: validity)
            let notBefore = try X509Time.seconds(try times.next(), in: bytes, "notBefore")
            let notAfter = try X509Time.seconds(try times.next(), in: bytes, "notAfter")
            try times.expectEnd("validity")
            let subject = try fields.next(DERReader.sequence, "subject")
            let key = try Self.publicKey(&fields)
            _ = try fields.optional(0x81)
            _ = try fields.optional(0x82)
            var isCA = false
            var extensions: Set<DERObjectIdentifier> = []
            if let wrapper = try fields.optional(0xA3) {
                var explicit = fields.reader(inside: wrapper)
                let list = try explicit.next(DERReader.sequence, "extensions")
                try explicit.expectEnd("extensions")
                var items = explicit.reader(inside: list)
                guard !items.isAtEnd else { throw DERError("extensions: empty") }
                while !items.isAtEnd {
                    var item = items.reader(inside: try items.next(DERReader.sequence, "extension"))
                    let id = try item.objectIdentifier("extnID")
                    if item.peekTag == DERReader.boolean {
                        // DER leaves out a DEFAULT value: an explicit FALSE is not DER.
                        guard try item.boolean("critical") else { throw DERError("extension \(id): critical FALSE written out") }
                    }
                    let value = try item.next(DERReader.octetString, "extnValue")
                    try item.expectEnd("extension")
                    guard extensions.insert(id).inserted else { throw DERError("extension \(id) appears twice") }
                    if id == .basicConstraints { isCA = try Self.basicConstraintsCA(item.reader(inside: value)) }
                }
            }
            try fields.expectEnd("tbsCertificate")

            self.der = bytes
            self.signedBytes = outer.encoding(of: tbs)
            self.signatureAlgorithm = outerAlgorithm
            self.signature = signature
            self.issuer = outer.encoding(of: issuer)
            self.subject = outer.encoding(of: subject)
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.publicKey = key
            self.isCertificateAuthority = isCA
            self.extensions = extensions
        } catch {
            throw X509Error(problem: error.problem)
        }
    }

    /// Whether the certificate carries the extension `oid` (dotted text).
    func hasExtension(_ oid: DERObjectIdentifier) -> Bool { extensions.contains(oid) }

    /// Whether `issuer`'s key verifies this certificate's signature over its `tbsCertificate`.
    func isSigned(by issuer: X509Certificate) -> Bool {
        let digest: [UInt8] = switch signatureAlgorithm {
        case .ecdsaWithSHA256: SHA256.hash(signedBytes)
        case .ecdsaWithSHA384: SHA384.hash(signedBytes)
        }
        return issuer.publicKey.isValidSignature(der: signature, digest: digest)
    }

    /// Whether issuer and subject are the same name and the certificate's own key verifies it.
    var isSelfSigned: Bool { issuer == subject && isSigned(by: self) }

    /// Whether `instant` (seconds since 1970) lies within the validity period.
    func isValid(at instant: Int64) -> Bool { notBefore <= instant && instant <= notAfter }

    // MARK: Parts

    private static func algorithm(_ reader: inout DERReader, _ what: String) throws(DERError) -> SignatureAlgorithm {
        var identifier = reader.reader(inside: try reader.next(DERReader.sequence, what))
        let oid = try identifier.objectIdentifier(what)
        // RFC 5758 §3.2: the ecdsa-with-SHA2 identifiers have no parameters (absent, not NULL).
        try identifier.expectEnd(what)
        switch oid {
        case .ecdsaWithSHA256: return .ecdsaWithSHA256
        case .ecdsaWithSHA384: return .ecdsaWithSHA384
        default: throw DERError("\(what): \(oid) is not ecdsa-with-SHA256 or ecdsa-with-SHA384")
        }
    }

    private static func publicKey(_ reader: inout DERReader) throws(DERError) -> ECDSAPublicKey {
        try ECDSAPublicKey.subjectPublicKeyInfo(&reader)
    }

    private static func basicConstraintsCA(_ outer: DERReader) throws(DERError) -> Bool {
        var outer = outer
        var constraints = outer.reader(inside: try outer.next(DERReader.sequence, "basicConstraints"))
        try outer.expectEnd("basicConstraints")
        var isCA = false
        if constraints.peekTag == DERReader.boolean {
            isCA = try constraints.boolean("basicConstraints.cA")
            guard isCA else { throw DERError("basicConstraints: cA FALSE written out") }
        }
        if constraints.peekTag == DERReader.integer {
            let pathLength = try constraints.integer("basicConstraints.pathLenConstraint")
            guard pathLength.first.map({ $0 & 0x80 == 0 }) == true else { throw DERError("basicConstraints: negative pathLenConstraint") }
        }
        try constraints.expectEnd("basicConstraints")
        return isCA
    }
}

/// Why bytes are not a certificate this package can check; ``description`` is one line.
public struct X509Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one phrase (for example `PEM: not exactly one CERTIFICATE block`).
    public var problem: String
    public var description: String { "certificate: \(problem)" }
}
