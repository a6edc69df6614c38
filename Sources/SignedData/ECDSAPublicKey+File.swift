import Cryptography

extension ECDSAPublicKey {
    /// A public key file's contents: a DER `SubjectPublicKeyInfo` (what `openssl ec -pubout
    /// -outform DER` writes), or PEM holding exactly one `PUBLIC KEY` block of it. P-256 or P-384.
    /// - Throws: ``X509Error`` when it is neither, or the key inside is malformed or on another curve.
    public init(publicKeyFile contents: some Collection<UInt8>) throws(X509Error) {
        let bytes = Array(contents)
        let der = try PEMBlock.der(bytes, label: "PUBLIC KEY") ?? bytes
        do throws(DERError) {
            var reader = DERReader(der)
            self = try Self.subjectPublicKeyInfo(&reader)
            try reader.expectEnd("public key file")
        } catch {
            throw X509Error(problem: error.problem)
        }
    }

    /// Reads a `SubjectPublicKeyInfo` (RFC 5280 §4.1.2.7) holding an elliptic-curve key on
    /// prime256v1 or secp384r1: the form in a certificate and in a public key file.
    static func subjectPublicKeyInfo(_ reader: inout DERReader) throws(DERError) -> ECDSAPublicKey {
        var info = reader.reader(inside: try reader.next(DERReader.sequence, "subjectPublicKeyInfo"))
        var algorithm = info.reader(inside: try info.next(DERReader.sequence, "subjectPublicKeyInfo.algorithm"))
        guard try algorithm.objectIdentifier("subjectPublicKeyInfo.algorithm") == .ecPublicKey else {
            throw DERError("subjectPublicKeyInfo: not an elliptic-curve key (id-ecPublicKey)")
        }
        let curve: EllipticCurve
        switch try algorithm.objectIdentifier("namedCurve") {
        case .prime256v1: curve = .p256
        case .secp384r1: curve = .p384
        case let other: throw DERError("subjectPublicKeyInfo: curve \(other) is not prime256v1 or secp384r1")
        }
        try algorithm.expectEnd("subjectPublicKeyInfo.algorithm")
        let point = try info.bitStringBytes("subjectPublicKey")
        try info.expectEnd("subjectPublicKeyInfo")
        do { return try ECDSAPublicKey(curve: curve, x962Representation: point) } catch {
            throw DERError("subjectPublicKey: not a point on the curve")
        }
    }
}
