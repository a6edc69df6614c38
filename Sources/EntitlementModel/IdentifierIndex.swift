/// Positions by identifier (a transaction id, an original transaction id), for ``FactStore``:
/// an open-addressing table of positions whose keys stay where the store keeps them (its cold
/// bytes, its subscriptions), so that indexing a fact creates no String and hashes its id once.
///
/// Identifiers compare as Swift Strings do (canonical equivalence): an ASCII identifier (every
/// App Store id) is hashed and compared as its bytes; any other is hashed as its NFC form and
/// compared as a String. Hashing is Swift's seeded SipHash, so crafted ids cannot make lookups
/// degrade.
struct IdentifierIndex: Sendable {
    /// Per slot: the position it holds plus one (0: empty) in the low 32 bits, and the low 32
    /// bits of its key's hash (what the slot is chosen by, and a cheap first comparison) in the
    /// high ones: one word, so that a probe touches one cache line.
    private var slots: [UInt64] = []
    private(set) var count = 0

    /// The hash of an identifier's UTF-8 bytes (see the type's description).
    static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hasher = Hasher()
        if isASCII(utf8) {
            hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        } else {
            // The NFC form: what String equality compares.
            String(decoding: utf8, as: UTF8.self)._nfcCodeUnits.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// Whether two identifiers are equal as Strings.
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.count == b.count, a.elementsEqual(b) { return true }
        if isASCII(a), isASCII(b) { return false }
        return String(decoding: a, as: UTF8.self) == String(decoding: b, as: UTF8.self)
    }

    private static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in utf8 { any |= byte }
        return any < 0x80
    }

    /// Makes room for `count` identifiers without growing.
    mutating func reserveCapacity(_ count: Int) {
        var capacity = 16
        while capacity < count * 2 { capacity *= 2 }
        if capacity > slots.count { rehash(capacity: capacity) }
    }

    /// The position held for the identifier whose hash is `hash`, where `matches` says whether
    /// the identifier at a position is the one looked for; `nil` when there is none.
    func position(hash: UInt32, matches: (Int32) -> Bool) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let word = slots[slot]
            if word == 0 { return nil }
            let position = Int32(truncatingIfNeeded: word & 0xFFFF_FFFF) - 1
            if UInt32(truncatingIfNeeded: word >> 32) == hash, matches(position) { return position }
            slot = (slot + 1) & mask
        }
    }

    /// Adds `position` for an identifier with hash `hash` that the index does not hold.
    mutating func insert(_ position: Int32, hash: UInt32) {
        if (count + 1) * 2 > slots.count { rehash(capacity: max(16, slots.count * 2)) }
        place(UInt64(hash) << 32 | UInt64(UInt32(position) + 1))
        count += 1
    }

    private mutating func place(_ word: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: word >> 32) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = word
    }

    private mutating func rehash(capacity: Int) {
        let old = slots
        slots = Array(repeating: 0, count: capacity)
        for word in old where word != 0 { place(word) }
    }
}
