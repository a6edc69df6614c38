import Cryptography

import Synchronization

/// An `x5c` chain whose links are verified: each certificate is signed by the next.
struct VerifiedChain: Sendable {
    /// Leaf first.
    let certificates: [X509Certificate]
    /// The leaf's key, prepared for the many payloads it signs.
    let leafKey: ECDSAPublicKey
    /// SHA-256 of the last certificate's DER bytes.
    let rootFingerprint: [UInt8]
    /// Whether the last certificate verifies under its own key with its issuer equal to its subject.
    let lastIsSelfSigned: Bool
}

/// Chains already parsed and verified, by their `x5c` text, so that the many payloads one leaf
/// signs cost one verification of the chain. The result depends only on the chain's bytes (trust
/// is decided afresh on every call), so one cache serves every caller in the process. Bounded:
/// it is emptied when it reaches ``capacity`` chains, so hostile input cannot grow it.
final class ChainCache: Sendable {
    static let shared = ChainCache()
    static let capacity = 64

    private let entries = Mutex<[[String]: Result<VerifiedChain, JWSFailure>]>([:])

    /// The verified chain for `x5c`, from the cache or checked now.
    /// - Throws: ``JWSFailure/malformed(_:)`` for an unreadable certificate,
    ///   ``JWSFailure/brokenChain(index:)`` for a link whose signature does not verify.
    func chain(_ x5c: [String]) throws(JWSFailure) -> VerifiedChain {
        if let known = entries.withLock({ $0[x5c] }) { return try known.get() }
        let result = Result { () throws(JWSFailure) in try Self.verify(x5c) }
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[x5c] = result
        }
        return try result.get()
    }

    /// Longer chains are refused before any work: App Store chains have 3 certificates.
    static let maximumLength = 8

    private static func verify(_ x5c: [String]) throws(JWSFailure) -> VerifiedChain {
        guard !x5c.isEmpty, x5c.count <= maximumLength else {
            throw .malformed("x5c holds \(x5c.count) certificates (1 to \(maximumLength) accepted)")
        }
        var certificates: [X509Certificate] = []
        for (index, text) in x5c.enumerated() {
            guard let der = Base64.decode(standard: text) else { throw .malformed("x5c[\(index)] is not base64") }
            do { certificates.append(try X509Certificate(der: der)) } catch { throw .malformed("x5c[\(index)]: \(error.description)") }
        }
        for index in certificates.indices.dropLast() where !certificates[index].isSigned(by: certificates[index + 1]) {
            throw .brokenChain(index: index)
        }
        let last = certificates[certificates.count - 1]
        return VerifiedChain(
            certificates: certificates, leafKey: certificates[0].publicKey.prepared(.manySignatures), rootFingerprint: SHA256.hash(last.der),
            lastIsSelfSigned: certificates.count == 1 && last.isSelfSigned)
    }
}
