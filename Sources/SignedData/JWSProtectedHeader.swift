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

    private let entries = Mutex<[HeaderText: JWSProtectedHeader]>([:])

    /// The prepared header whose text is exactly `encoded`, if one is cached.
    public func header(encoded: some Collection<UInt8>) -> JWSProtectedHeader? {
        let key = HeaderText(Array(encoded))
        return entries.withLock { $0[key] }
    }

    /// Keeps `header` for later JWS strings with the same header text.
    public func insert(_ header: JWSProtectedHeader) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[HeaderText(header.encoded)] = header
        }
    }

    /// How many headers are cached, for tests.
    var count: Int { entries.withLock { $0.count } }

    /// A header's text as a key: equal only byte for byte. The hash reads the length and the
    /// first and last bytes only (a chain's leaf comes first), so a lookup does not hash 4 KB;
    /// headers crafted to collide cost at most ``capacity`` comparisons.
    private struct HeaderText: Hashable, Sendable {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func hash(into hasher: inout Hasher) {
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { raw in
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(512)))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(64)))
            }
        }
    }
}
