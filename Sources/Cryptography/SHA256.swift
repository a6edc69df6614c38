/// SHA-256 (FIPS 180-4 §6.2).
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        hash(bytes, after: Midstate(state: initialState, byteCount: 0))
    }

    typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    static let initialState: State = (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)

    /// The state after the whole 64-byte blocks that begin a message: messages sharing that
    /// beginning (JWS signing inputs whose protected header is the same) are then hashed from
    /// here, each paying only for its own bytes.
    package struct Midstate: Sendable {
        var state: State
        /// Bytes already hashed: a multiple of 64.
        package var byteCount: Int

        /// The state after the longest whole-block prefix of `prefix` (fewer than 64 of its
        /// bytes are left out).
        package init(prefix: some Collection<UInt8>) {
            let whole = prefix.count / 64 * 64
            self = Array(prefix.prefix(whole)).withUnsafeBytes { Midstate(blocks: $0) }
        }

        /// The state after `blocks`, whose count is a multiple of 64, read in place (HMAC's
        /// padded key is one block that no copy should hold).
        init(blocks: UnsafeRawBufferPointer) {
            precondition(blocks.count % 64 == 0)
            var state = SHA256.initialState
            var offset = 0
            while offset < blocks.count {
                compress(&state, UnsafeRawBufferPointer(rebasing: blocks[offset..<offset + 64]))
                offset += 64
            }
            self.init(state: state, byteCount: blocks.count)
        }

        init(state: State, byteCount: Int) {
            self.state = state
            self.byteCount = byteCount
        }
    }

    /// The digest of a message whose first `midstate.byteCount` bytes `midstate` already hashed
    /// and whose remaining bytes are `rest`.
    package static func hash(_ rest: some Collection<UInt8>, after midstate: Midstate) -> [UInt8] {
        var state = midstate.state
        MerkleDamgard.process(rest, blockSize: 64, lengthFieldSize: 8, precedingByteCount: midstate.byteCount) { block in compress(&state, block) }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        withUnsafeBytes(of: state) { raw in
            for word in raw.bindMemory(to: UInt32.self) { digest.append(contentsOf: word.bigEndianBytes) }
        }
        return digest
    }

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// One 64-byte block into the state.
    private static func compress(_ state: inout State, _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 { schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)) }
            for index in 16..<64 {
                let w15 = schedule[index - 15], w2 = schedule[index - 2]
                let sigma0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 >> 3)
                let sigma1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = state
            roundConstants.withUnsafeBufferPointer { k in
                for index in 0..<64 {
                    let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ sum1 &+ choice &+ k[index] &+ schedule[index]
                    let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = sum0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

/// SHA-384 (FIPS 180-4 §6.5): SHA-512's compression with its own initial value, cut to 48 bytes.
public enum SHA384 {
    /// The 48-byte digest of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        SHA512Core.hash(
            bytes,
            initialState: (0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
                           0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4),
            digestWordCount: 6)
    }
}
