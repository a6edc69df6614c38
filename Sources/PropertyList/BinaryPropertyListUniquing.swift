/// The shared objects of a binary property list being written: which object already has a given
/// encoding.
///
/// Keyed by an object's encoded bytes (marker and payload) rather than by its value: two
/// strings encode alike exactly when their Unicode scalars are identical (not merely canonically
/// equivalent), two integers exactly when they are equal, and no string, integer and boolean
/// share a marker, so equal bytes mean "the same value" in the sense the encoder shares.
/// Open addressing with linear probing over a power-of-two table; no per-key allocation.
struct BinaryPropertyListUniquing {
    private struct Entry {
        /// `-1` for an empty slot.
        var object: Int
        var bytes: Range<Int>
        var hash: Int

        static let empty = Entry(object: -1, bytes: 0..<0, hash: 0)
    }

    /// Where every hash starts, drawn once per process: which encodings collide depends on it.
    private static let processSeed = UInt64.random(in: .min ... .max)
    private let seed = processSeed

    /// The hash of `bytes`, eight at a time, each product's high half folded into its low half (the
    /// slot's bits): a few cycles for a short string, where `Hasher` cost more than its encoding.
    private func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash = seed, tail: UInt64 = 0
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        let whole = bytes.count - bytes.count % 8
        for offset in stride(from: 0, to: whole, by: 8) { mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        for byte in bytes[whole...] { tail = tail << 8 | UInt64(byte) }
        mix(tail)
        return Int(truncatingIfNeeded: hash)
    }

    private var slots = [Entry](repeating: .empty, count: 64)
    private var count = 0

    /// The object already encoded as `storage[bytes]`, or `nil` after remembering `candidate`
    /// as the object with that encoding (the caller adds it). `bytes` of earlier objects must
    /// still be where they were in `storage`.
    mutating func indexOrInsert(_ candidate: Int, bytes: Range<Int>, of storage: UnsafeBufferPointer<UInt8>) -> Int? {
        let base = storage.baseAddress!
        let encoding = UnsafeRawBufferPointer(start: base + bytes.lowerBound, count: bytes.count)
        let hash = hash(encoding)
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot].object >= 0 {
            let entry = slots[slot]
            if entry.hash == hash, entry.bytes.count == bytes.count,
                UnsafeRawBufferPointer(start: base + entry.bytes.lowerBound, count: bytes.count).elementsEqual(encoding)
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

    private mutating func grow() {
        var larger = [Entry](repeating: .empty, count: slots.count * 2)
        let mask = larger.count - 1
        for entry in slots where entry.object >= 0 {
            var slot = entry.hash & mask
            while larger[slot].object >= 0 { slot = (slot + 1) & mask }
            larger[slot] = entry
        }
        slots = larger
    }
}
