/// The shared objects of a binary property list being written: which object already has a given
/// encoding.
///
/// Keyed by an object's encoded bytes (marker and payload) rather than by its value: two
/// strings encode alike exactly when their Unicode scalars are identical (not merely canonically
/// equivalent), two integers exactly when they are equal, and no string, integer and boolean
/// share a marker, so equal bytes mean "the same value" in the sense the encoder shares.
/// Open addressing with linear probing over a power-of-two table, a word-at-a-time multiplicative
/// hash; no `String` hashing, no per-key allocation.
struct BinaryPropertyListUniquing {
    private struct Entry {
        /// `-1` for an empty slot.
        var object: Int
        var bytes: Range<Int>
        var hash: UInt64

        static let empty = Entry(object: -1, bytes: 0..<0, hash: 0)
    }

    private var slots = [Entry](repeating: .empty, count: 64)
    private var count = 0

    /// The object already encoded as `storage[bytes]`, or `nil` after remembering `candidate`
    /// as the object with that encoding (the caller adds it). `bytes` of earlier objects must
    /// still be where they were in `storage`.
    mutating func indexOrInsert(_ candidate: Int, bytes: Range<Int>, of storage: UnsafeBufferPointer<UInt8>) -> Int? {
        let base = storage.baseAddress!
        let hash = Self.hash(base + bytes.lowerBound, count: bytes.count)
        let found = slots.withUnsafeMutableBufferPointer { slots -> Int? in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].object >= 0 {
                let entry = slots[slot]
                if entry.hash == hash, entry.bytes.count == bytes.count,
                    RawBytes.equal(base + entry.bytes.lowerBound, base + bytes.lowerBound, count: bytes.count)
                {
                    return entry.object
                }
                slot = (slot + 1) & mask
            }
            slots[slot] = Entry(object: candidate, bytes: bytes, hash: hash)
            return nil
        }
        if found != nil { return found }
        count += 1
        if count * 2 > slots.count { grow() }
        return nil
    }

    private mutating func grow() {
        var larger = [Entry](repeating: .empty, count: slots.count * 2)
        let mask = larger.count - 1
        for entry in slots where entry.object >= 0 {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while larger[slot].object >= 0 { slot = (slot + 1) & mask }
            larger[slot] = entry
        }
        slots = larger
    }

    /// Eight bytes at a time (a last partial word read overlapping the one before, or byte by
    /// byte when there are fewer than eight), then mixed so that the low bits, which pick the
    /// slot, depend on every input bit.
    @inline(__always)
    private static func hash(_ start: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        let raw = UnsafeRawPointer(start)
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(truncatingIfNeeded: count)
        if count >= 8 {
            var position = 0
            while position &+ 8 < count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)) &* prime
                hash ^= hash >> 32
                position &+= 8
            }
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) &* prime
        } else {
            var tail: UInt64 = 0
            for position in 0..<count { tail = tail << 8 | UInt64(start[position]) }
            hash = (hash ^ tail) &* prime
        }
        hash ^= hash >> 32
        hash = hash &* 0xd6e8_feb8_6659_fd93
        return hash ^ (hash >> 32)
    }
}
