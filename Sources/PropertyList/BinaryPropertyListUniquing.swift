/// The shared objects of a binary property list being written: which object already has a given
/// encoding.
///
/// Keyed by an object's encoded bytes (marker and payload) rather than by its value: two
/// strings encode alike exactly when their Unicode scalars are identical (not merely canonically
/// equivalent), two integers exactly when they are equal, and no string, integer and boolean
/// share a marker, so equal bytes mean "the same value" in the sense the encoder shares.
/// Open addressing with linear probing over a power-of-two table, FNV-1a hashes; no `String`
/// hashing, no per-key allocation.
struct BinaryPropertyListUniquing {
    private struct Entry {
        var object: Int
        var bytes: Range<Int>
        var hash: UInt64
    }

    /// `nil` for an empty slot.
    private var slots = [Entry?](repeating: nil, count: 64)
    private var count = 0

    /// The object already encoded as `buffer[bytes]`, or `nil` after remembering `candidate`
    /// as the object with that encoding (the caller adds it). `bytes` of earlier objects must
    /// still be where they were in `buffer`.
    mutating func indexOrInsert(_ candidate: Int, bytes: Range<Int>, of storage: UnsafeBufferPointer<UInt8>) -> Int? {
        do {
            let hash = Self.hash(UnsafeBufferPointer(rebasing: storage[bytes]))
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while let entry = slots[slot] {
                if entry.hash == hash, entry.bytes.count == bytes.count,
                    RawBytes.equal(storage.baseAddress! + entry.bytes.lowerBound, storage.baseAddress! + bytes.lowerBound, count: bytes.count)
                {
                    return entry.object
                }
                slot = (slot + 1) & mask
            }
            slots[slot] = Entry(object: candidate, bytes: bytes, hash: hash)
            count += 1
            if count * 2 > slots.count { grow() }
            return nil
        }
    }

    private mutating func grow() {
        var larger = [Entry?](repeating: nil, count: slots.count * 2)
        let mask = larger.count - 1
        for case let entry? in slots {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while larger[slot] != nil { slot = (slot + 1) & mask }
            larger[slot] = entry
        }
        slots = larger
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash ^ (hash >> 29)
    }
}
