/// Strict base64 decoding (RFC 4648) for the two alphabets a JWS uses: base64url without
/// padding for its three parts (RFC 7515 §2) and standard base64 with padding for the `x5c`
/// certificates (RFC 7515 §4.1.6).
///
/// Strict means one spelling per byte string: no white space, no characters outside the
/// alphabet, padding exactly where the alphabet requires it, and the unused low bits of the last
/// character zero. Anything else is `nil`, never a best guess.
public enum Base64 {
    /// The bytes of `text` in base64url without padding, or `nil` if it is not exactly that.
    public static func decode(url text: some StringProtocol) -> [UInt8]? {
        withContiguousUTF8(text) { decode($0, alphabet: .url) }
    }

    /// The bytes of `text` in standard base64 with padding, or `nil` if it is not exactly that.
    public static func decode(standard text: some StringProtocol) -> [UInt8]? {
        withContiguousUTF8(text) { decode($0, alphabet: .standard) }
    }

    /// The bytes of `symbols` in base64url without padding, or `nil` if it is not exactly that.
    static func decode(url symbols: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        decode(symbols, alphabet: .url)
    }

    /// `body` over the UTF-8 bytes of `text`, in place when the string stores them contiguously.
    private static func withContiguousUTF8<R>(_ text: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// Bytes as base64url without padding (the inverse of ``decode(url:)``).
    public static func encode(url bytes: some Collection<UInt8>) -> String {
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next(), third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            out.append(symbols[Int(group >> 18 & 63)])
            out.append(symbols[Int(group >> 12 & 63)])
            if second != nil { out.append(symbols[Int(group >> 6 & 63)]) }
            if third != nil { out.append(symbols[Int(group & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private enum Alphabet { case url, standard }

    /// Each byte's 6-bit value in `alphabet`, or 0xFF for a byte outside it.
    private static func table(_ alphabet: Alphabet) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        let last2: (UInt8, UInt8) = alphabet == .url ? (UInt8(ascii: "-"), UInt8(ascii: "_")) : (UInt8(ascii: "+"), UInt8(ascii: "/"))
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + [last2.0, last2.1]
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }

    private static let urlTable = table(.url)
    private static let standardTable = table(.standard)

    /// Whole groups of four symbols at a time through a lookup table: a JWS header carries the
    /// whole `x5c` chain (kilobytes), decoded for every JWS, so decoding sits on the hot path of
    /// a verified ingest and a branch per symbol would cost more than the table.
    private static func decode(_ symbols: UnsafeBufferPointer<UInt8>, alphabet: Alphabet) -> [UInt8]? {
        var count = symbols.count
        if alphabet == .standard {
            guard count % 4 == 0 else { return nil }
            if count > 0, symbols[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0, symbols[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        // A lone trailing symbol carries 6 bits, less than a byte: no encoder writes it.
        guard count % 4 != 1 else { return nil }
        let table = alphabet == .url ? urlTable : standardTable
        let whole = count / 4 * 4
        let tail = count - whole
        let outCount = whole / 4 * 3 + (tail == 0 ? 0 : tail - 1)
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
            table.withUnsafeBufferPointer { table in
                do {
                    let input = symbols
                    var bad: UInt8 = 0
                    var o = 0
                    var i = 0
                    while i < whole {
                        let a = table[Int(input[i])], b = table[Int(input[i + 1])], c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                        bad |= a | b | c | d
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        out[o] = UInt8(truncatingIfNeeded: group >> 16)
                        out[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        out[o + 2] = UInt8(truncatingIfNeeded: group)
                        o += 3
                        i += 4
                    }
                    var group: UInt32 = 0
                    for index in 0..<tail {
                        let value = table[Int(input[whole + index])]
                        bad |= value
                        group |= UInt32(value & 63) << UInt32(18 - 6 * index)
                    }
                    if tail >= 2 { out[o] = UInt8(truncatingIfNeeded: group >> 16) }
                    if tail == 3 { out[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                    // A symbol outside the alphabet has its 0x80 bit set (0xFF); the left-over
                    // bits after the last whole byte must be zero, or two spellings would decode
                    // to the same bytes.
                    let leftover: UInt32 = tail == 2 ? group & 0xFFFF : tail == 3 ? group & 0xFF : 0
                    valid = bad & 0x80 == 0 && leftover == 0
                }
            }
            // Every output byte was written above, valid or not.
            initialized = outCount
        }
        return valid ? out : nil
    }
}
