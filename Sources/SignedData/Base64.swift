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
        decode(Array(text.utf8), alphabet: .url)
    }

    /// The bytes of `text` in standard base64 with padding, or `nil` if it is not exactly that.
    public static func decode(standard text: some StringProtocol) -> [UInt8]? {
        decode(Array(text.utf8), alphabet: .standard)
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

    private static func value(of symbol: UInt8, in alphabet: Alphabet) -> UInt32? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(symbol - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(symbol - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(symbol - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "-") where alphabet == .url: 62
        case UInt8(ascii: "_") where alphabet == .url: 63
        case UInt8(ascii: "+") where alphabet == .standard: 62
        case UInt8(ascii: "/") where alphabet == .standard: 63
        default: nil
        }
    }

    private static func decode(_ symbols: [UInt8], alphabet: Alphabet) -> [UInt8]? {
        var body = symbols[...]
        if alphabet == .standard {
            guard symbols.count % 4 == 0 else { return nil }
            if body.last == UInt8(ascii: "=") { body = body.dropLast() }
            if body.last == UInt8(ascii: "=") { body = body.dropLast() }
        }
        // A lone trailing symbol carries 6 bits, less than a byte: no encoder writes it.
        guard body.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(body.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in body {
            guard let value = value(of: symbol, in: alphabet) else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Left-over bits must be zero, or two spellings would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return out
    }
}
