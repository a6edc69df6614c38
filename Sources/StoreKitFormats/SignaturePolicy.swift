import Cryptography
import SignedData

/// What a catalog demands of signed data (catalog keys `signatures` and `trustedRoots`).
///
/// Every JWS must be intact in both modes (`alg` ES256, the signature verifies with the leaf's
/// key, each `x5c` certificate is signed by the next) or its line is refused. Under
/// ``Requirement/required`` it must also be trusted (see `SignedData.JWSVerifier`) and unsigned payloads
/// are refused; under ``Requirement/optional`` an intact but untrusted JWS is accepted as
/// unverified, like an unsigned payload.
public struct SignaturePolicy: Sendable, Hashable {
    /// Whether signed data must chain to a trusted root (catalog key `signatures`).
    public enum Requirement: String, Sendable, Hashable, CaseIterable {
        /// Every payload must be a JWS that chains to a trusted root.
        case required
        /// Unsigned payloads, and intact JWS that chain to no trusted root, are accepted as unverified.
        case optional
    }

    /// Whether a trusted signature is required.
    public var requirement: Requirement
    /// Roots trusted beside the built-in Apple Root CA - G3.
    public var trustedRoots: [X509Certificate] {
        didSet { verifier = JWSVerifier(additionalRoots: trustedRoots) }
    }
    /// The developer's keys that sign grants (catalog key `grantKeys`), by the `kid` a grant's JWS
    /// header names. A grant is intact when its signature verifies under the key its `kid`
    /// names; a `kid` not listed here refuses the grant whatever the ``requirement``.
    public var grantKeys: [String: ECDSAPublicKey] = [:]
    /// The chain rules with this policy's roots.
    public private(set) var verifier: JWSVerifier

    /// A policy with `requirement`, trusting `trustedRoots` beside Apple Root CA - G3.
    public init(requirement: Requirement, trustedRoots: [X509Certificate] = [], grantKeys: [String: ECDSAPublicKey] = [:]) {
        self.requirement = requirement
        self.grantKeys = grantKeys
        self.trustedRoots = trustedRoots
        self.verifier = JWSVerifier(additionalRoots: trustedRoots)
    }

    /// Signatures optional, only Apple Root CA - G3 trusted.
    public static let optional = SignaturePolicy(requirement: .optional)
    /// Signatures required, only Apple Root CA - G3 trusted.
    public static let required = SignaturePolicy(requirement: .required)

    /// The default for a catalog that accepts `environments`: required when any of them is
    /// Production or Sandbox, where Apple's chain signs everything; optional for Xcode and
    /// LocalTesting, whose data is signed locally.
    public static func defaultRequirement(for environments: [StoreEnvironment]) -> Requirement {
        environments.contains { $0 == .production || $0 == .sandbox } ? .required : .optional
    }
}
