/// Why a JWS was refused or is not trusted. ``description`` is one line for an error message.
///
/// Two kinds (``isIntegrityFailure``): a JWS that is not intact (wrong `alg`, a signature that
/// does not verify, a certificate not signed by the next one, anything unreadable) is refused
/// whatever the catalog says; an intact JWS that fails a trust rule (root, chain shape, Apple's
/// OIDs, validity) is refused only where signatures are required.
public enum JWSFailure: Error, Sendable, Hashable, CustomStringConvertible {
    // Integrity.
    /// Not a readable JWS or certificate chain.
    case malformed(String)
    /// The header's `alg` is not `ES256` (`nil`: missing).
    case algorithm(String?)
    /// The JWS signature does not verify with the leaf certificate's key.
    case badSignature
    /// Certificate `index` (0 = leaf) of `x5c` is not signed by the next one.
    case brokenChain(index: Int)

    // Trust.
    /// The last certificate is not a trusted root.
    case untrustedRoot
    /// `x5c` holds `count` certificates: App Store data has 3, Xcode data 1.
    case chainLength(Int)
    /// A one-certificate chain whose certificate is not self-signed.
    case notSelfSigned
    /// The certificate at `index` lacks Apple's marker extension `oid`.
    case missingAppleOID(index: Int, oid: String)
    /// The intermediate certificate is not a CA (basicConstraints).
    case intermediateNotCA
    /// Certificate `index` is not valid at the payload's `signedDate`.
    case expired(index: Int)
    /// The payload has no `signedDate` to check the certificates' validity at.
    case missingSignedDate

    /// Whether the JWS is not intact (refused in every mode), as opposed to intact but untrusted.
    public var isIntegrityFailure: Bool {
        switch self {
        case .malformed, .algorithm, .badSignature, .brokenChain: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .malformed(let problem): problem
        case .algorithm(let alg): "algorithm: JWS alg \(alg.map { "'\($0)'" } ?? "missing") is not ES256"
        case .badSignature: "bad signature: the JWS signature does not verify with the leaf certificate's key"
        case .brokenChain(let index): "bad signature: x5c[\(index)] is not signed by x5c[\(index + 1)]"
        case .untrustedRoot: "untrusted root: the chain does not end in a trusted root certificate"
        case .chainLength(let count): "untrusted chain: x5c holds \(count) certificates (App Store data has 3, Xcode data 1)"
        case .notSelfSigned: "untrusted chain: the single x5c certificate is not self-signed"
        case .missingAppleOID(let index, let oid): "missing Apple OID: x5c[\(index)] lacks extension \(oid)"
        case .intermediateNotCA: "untrusted chain: the intermediate x5c[1] is not a CA (basicConstraints)"
        case .expired(let index): "certificate expired at signedDate: x5c[\(index)] is not valid at the payload's signedDate"
        case .missingSignedDate: "untrusted chain: the payload has no signedDate to check certificate validity at"
        }
    }
}
