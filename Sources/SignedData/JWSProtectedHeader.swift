import Cryptography

import Synchronization

/// A JWS protected header as the verifier uses it, prepared once per distinct header text: its
/// `alg` and `x5c`, the chain's verdict, and the SHA-256 state after the whole 64-byte blocks of
/// `header.`. App Store JWS strings carry the whole certificate chain in the header (about 4 KB
/// of the 5 KB signing input), identical for every payload the same leaf signs, so a verification
/// with a prepared header hashes only the payload's part and does no chain lookup.
///
/// Nothing about a payload or a signature is kept: ``JWSVerifier/verify(_:header:signedDate:)``
/// checks that the JWS carries exactly these header bytes, then hashes and verifies its signature.
public final class JWSProtectedHeader: Sendable {
    /// The header as it appears in the JWS (base64url text, before the first dot).
    public let encoded: [UInt8]
    /// `alg` (nil when absent).
    public let algorithm: String?
    /// `x5c`, standard base64 DER certificates, leaf first (nil when absent).
    public let chain: [String]?
    /// SHA-256 state after the whole blocks of `encoded` followed by the dot.
    let prefix: SHA256.Midstate
    /// The chain's verdict, when `alg` is ES256 and `x5c` is not empty (else never needed: the
    /// verifier refuses the JWS first).
    let verdict: Result<VerifiedChain, JWSFailure>?

    /// Prepares the header whose text is `encoded` and whose JSON (the caller's reader decoded
    /// it) gave `algorithm` and `chain`. Verifies the chain (through ``ChainCache``) when it will
    /// be needed.
    public init(encoded: [UInt8], algorithm: String?, chain: [String]?) {
        self.encoded = encoded
        self.algorithm = algorithm
        self.chain = chain
        prefix = SHA256.Midstate(prefix: encoded + [UInt8(ascii: ".")])
        if algorithm == "ES256", let chain, !chain.isEmpty {
            verdict = Result { () throws(JWSFailure) in try ChainCache.shared.chain(chain) }
        } else {
            verdict = nil
        }
    }
}

/// Prepared headers by their text, shared by every caller in the process (what a header gives
/// does not depend on the trust settings, which are applied afresh on every verification).
/// Bounded: emptied when it reaches ``capacity`` headers, so hostile input cannot grow it.
public final class JWSHeaderCache: Sendable {
    /// The one cache of the process; thread-safe.
    public static let shared = JWSHeaderCache()
    static let capacity = 64

    /// Headers by a hash of their text's length, first 512 and last 64 bytes (a chain's leaf
    /// comes first), so a lookup neither copies nor hashes 4 KB; headers crafted to collide cost
    /// at most ``capacity`` comparisons. A header is found only when its text is equal byte for
    /// byte.
    private struct Entries {
        var byHash: [Int: [JWSProtectedHeader]] = [:]
        var count = 0
    }

    private let entries = Mutex(Entries())

    /// The prepared header whose text is exactly `encoded`, if one is cached.
    public func header(encoded: some Collection<UInt8>) -> JWSProtectedHeader? {
        let found = encoded.withContiguousStorageIfAvailable { find(UnsafeRawBufferPointer($0)) }
        return found ?? Array(encoded).withUnsafeBytes { find($0) }
    }

    private func find(_ encoded: UnsafeRawBufferPointer) -> JWSProtectedHeader? {
        let key = Self.hash(encoded)
        return entries.withLock { entries in
            entries.byHash[key]?.first { header in header.encoded.withUnsafeBytes { ByteComparison.equal($0, encoded) } }
        }
    }

    /// Keeps `header` for later JWS strings with the same header text.
    public func insert(_ header: JWSProtectedHeader) {
        let key = header.encoded.withUnsafeBytes { Self.hash($0) }
        entries.withLock { entries in
            if entries.count >= Self.capacity {
                entries.byHash.removeAll(keepingCapacity: true)
                entries.count = 0
            }
            var bucket = entries.byHash[key] ?? []
            if let index = bucket.firstIndex(where: { ByteComparison.equal($0.encoded, header.encoded) }) {
                bucket[index] = header
            } else {
                bucket.append(header)
                entries.count += 1
            }
            entries.byHash[key] = bucket
        }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes.prefix(512)))
        hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes.suffix(64)))
        return hasher.finalize()
    }
}
