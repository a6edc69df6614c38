/// Up to 384 bits as six little-endian 64-bit words, held inline (no heap): the storage of every
/// field element and scalar of both curves. A P-256 value uses the first four words and keeps the
/// other two zero.
struct Limbs: Equatable, Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    @inline(__always)
    init(_ w0: UInt64 = 0, _ w1: UInt64 = 0, _ w2: UInt64 = 0, _ w3: UInt64 = 0, _ w4: UInt64 = 0, _ w5: UInt64 = 0) {
        words = (w0, w1, w2, w3, w4, w5)
    }

    static var zero: Limbs { Limbs() }

    /// Word `index` (0 is the least significant). A switch rather than a pointer, so that in
    /// loops of a constant trip count (which the optimiser unrolls) each access is a plain
    /// field and the words stay in registers.
    subscript(index: Int) -> UInt64 {
        @inline(__always) get {
            switch index {
            case 0: words.0
            case 1: words.1
            case 2: words.2
            case 3: words.3
            case 4: words.4
            default: words.5
            }
        }
        @inline(__always) set {
            switch index {
            case 0: words.0 = newValue
            case 1: words.1 = newValue
            case 2: words.2 = newValue
            case 3: words.3 = newValue
            case 4: words.4 = newValue
            default: words.5 = newValue
            }
        }
    }

    static func == (lhs: Limbs, rhs: Limbs) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3 && lhs.words.4 == rhs.words.4 && lhs.words.5 == rhs.words.5
    }

    /// Whether every word is zero.
    var isZero: Bool {
        (words.0 | words.1 | words.2 | words.3 | words.4 | words.5) == 0
    }

    /// The value of `count` words read big-endian from exactly `count * 8` bytes.
    init(bigEndian bytes: UnsafeBufferPointer<UInt8>, count: Int) {
        precondition(bytes.count == count * 8)
        var limbs = Limbs()
        for index in 0..<count {
            var word: UInt64 = 0
            let start = (count - 1 - index) * 8
            for byte in bytes[start..<start + 8] { word = word << 8 | UInt64(byte) }
            limbs[index] = word
        }
        self = limbs
    }

    /// The first `count` words as `count * 8` big-endian bytes.
    func bigEndianBytes(count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 8)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let word = self[index]
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return bytes
    }

    /// Whether the first `count` words, as a number, are less than `other`'s.
    func isLess(than other: Limbs, count: Int) -> Bool {
        var index = count - 1
        while index >= 0 {
            if self[index] != other[index] { return self[index] < other[index] }
            index -= 1
        }
        return false
    }

    /// Bit `index` (0 is the least significant).
    func bit(_ index: Int) -> Bool {
        (self[index >> 6] >> UInt64(index & 63)) & 1 == 1
    }
}
