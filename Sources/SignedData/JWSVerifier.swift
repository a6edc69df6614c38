import Cryptography

/// The rules a JWS from the App Store must meet, as StoreKit and Apple's App Store Server Library
/// apply them offline.
///
/// Intact (checked in every mode; a failure throws):
/// - the header's `alg` is `ES256`;
/// - `x5c` is a non-empty list of certificates this package can read, leaf first;
/// - the JWS signature (raw `r || s` over SHA-256 of `header.payload`) verifies with the leaf's
///   P-256 key;
/// - each certificate is signed by the next.
///
/// Trusted (reported as ``Trust/untrusted(_:)`` when not met):
/// - the last certificate is byte for byte a trusted root: Apple Root CA - G3, pinned by its
///   SHA-256 fingerprint, or one of ``init(additionalRoots:)``;
/// - App Store data: exactly three certificates, the leaf with Apple's extension
///   1.2.840.113635.100.6.11.1, the intermediate with 1.2.840.113635.100.6.2.1 and a CA;
///   Xcode data: exactly one certificate, self-signed;
/// - every certificate is valid at the payload's `signedDate`. Revocation (OCSP) is not checked:
///   that needs the network.
///
/// Chains are verified once and kept (``ChainCache``), and so is what a header gives
/// (``JWSHeaderCache``): another payload signed under the same header costs the SHA-256 of its
/// own part and one P-256 verification.
public struct JWSVerifier: Sendable, Hashable {
    /// SHA-256 fingerprints of the trusted roots.
    public let rootFingerprints: Set<[UInt8]>

    /// The SHA-256 fingerprint of Apple Root CA - G3 (its bytes arrive in every real chain).
    public static let appleRootCAG3Fingerprint: [UInt8] = [
        0x63, 0x34, 0x3A, 0xBF, 0xB8, 0x9A, 0x6A, 0x03, 0xEB, 0xB5, 0x7E, 0x9B, 0x3F, 0x5F, 0xA7, 0xBE,
        0x7C, 0x4F, 0x5C, 0x75, 0x6F, 0x30, 0x17, 0xB3, 0xA8, 0xC4, 0x88, 0xC3, 0x65, 0x3E, 0x91, 0x79,
    ]

    /// Trusts Apple Root CA - G3 and `additionalRoots` (e.g. Xcode's StoreKit testing certificate).
    public init(additionalRoots: [X509Certificate] = []) {
        rootFingerprints = Set([Self.appleRootCAG3Fingerprint] + additionalRoots.map { SHA256.hash($0.der) })
    }

    /// Whether an intact JWS also met every trust rule.
    public enum Trust: Sendable, Hashable {
        /// The chain ends at a trusted root and every certificate rule held.
        case trusted
        /// Intact, but `reason` is a trust rule it failed.
        case untrusted(JWSFailure)
    }

    /// Checks `jws`, whose header gave `algorithm` (`alg`) and `chain` (`x5c`, standard base64
    /// DER certificates, leaf first); `signedDate` is the payload's, in seconds since 1970 (UTC).
    /// - Returns: whether the intact JWS is trusted.
    /// - Throws: the ``JWSFailure`` (an integrity failure) that makes it not intact.
    public func verify(_ jws: JWSCompact, algorithm: String?, chain: [String]?, signedDate: Double?) throws(JWSFailure) -> Trust {
        try verify(jws, header: JWSProtectedHeader(encoded: Array(jws.encodedHeader), algorithm: algorithm, chain: chain), signedDate: signedDate)
    }

    /// Checks `jws` with its header prepared in advance (see ``JWSHeaderCache``); `signedDate` is
    /// the payload's, in seconds since 1970 (UTC).
    /// - Returns: whether the intact JWS is trusted.
    /// - Throws: the ``JWSFailure`` (an integrity failure) that makes it not intact;
    ///   ``JWSFailure/malformed(_:)`` when `header` is not the header `jws` carries.
    public func verify(_ jws: JWSCompact, header: JWSProtectedHeader, signedDate: Double?) throws(JWSFailure) -> Trust {
        guard ByteComparison.equal(jws.encodedHeader, header.encoded) else { throw .malformed("JWS header differs from the prepared one") }
        guard header.algorithm == "ES256" else { throw .algorithm(header.algorithm) }
        guard let verdict = header.verdict else { throw .malformed("JWS header has no x5c certificate chain") }
        let verified = try verdict.get()
        // The signing input begins with the header and its dot, whose whole blocks are hashed.
        let rest = jws.signingInput[header.prefix.byteCount...]
        guard verified.leafKey.curve == .p256,
            verified.leafKey.isValidSignature(raw: jws.signature, digest: SHA256.hash(rest, after: header.prefix))
        else { throw .badSignature }
        if let failure = trustFailure(verified, signedDate: signedDate) { return .untrusted(failure) }
        return .trusted
    }

    /// The first trust rule `chain` (intact) fails, or `nil`.
    private func trustFailure(_ chain: VerifiedChain, signedDate: Double?) -> JWSFailure? {
        let certificates = chain.certificates
        switch certificates.count {
        case 1: if !chain.lastIsSelfSigned { return .notSelfSigned }
        case 3: break
        default: return .chainLength(certificates.count)
        }
        guard rootFingerprints.contains(chain.rootFingerprint) else { return .untrustedRoot }
        if certificates.count == 3 {
            if !certificates[0].hasExtension(.appleReceiptSigningLeaf) {
                return .missingAppleOID(index: 0, oid: DERObjectIdentifier.appleReceiptSigningLeaf.description)
            }
            if !certificates[1].hasExtension(.appleWWDRIntermediate) {
                return .missingAppleOID(index: 1, oid: DERObjectIdentifier.appleWWDRIntermediate.description)
            }
            if !certificates[1].isCertificateAuthority { return .intermediateNotCA }
        }
        guard let signedDate, signedDate.isFinite else { return .missingSignedDate }
        for (index, certificate) in certificates.enumerated()
        where !(Double(certificate.notBefore) <= signedDate && signedDate <= Double(certificate.notAfter)) {
            return .expired(index: index)
        }
        return nil
    }
}
