import FoundationEssentials

/// The small text payloads of the journal's own records (loss, summary): space-separated words,
/// each value percent-encoded outside printable ASCII (and `%` itself), so ids with spaces or
/// newlines stay one word.
enum JournalWords {
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte > 0x20, byte < 0x7F, byte != 0x25 { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out.isEmpty ? "%" : out
    }

    static func unescape(_ word: String) -> String? { unescape(word.utf8) }

    /// The text of an escaped word; `nil` when an escape is not `%` and two hex digits, or the
    /// bytes are not UTF-8.
    static func unescape(_ word: some Collection<UInt8>) -> String? {
        if word.count == 1, word.first == 0x25 { return "" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(word.count)
        var utf8 = word.makeIterator()
        while let byte = utf8.next() {
            guard byte == 0x25 else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one ASCII hexadecimal digit (either case), or `nil` for any other byte.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    static func split(_ payload: [UInt8]) -> [String] {
        payload.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A date as the 16 hex digits of its `timeIntervalSinceReferenceDate`'s bits: read back exactly.
    static func date(_ date: Date) -> String {
        let hex = String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func date(_ word: some Collection<UInt8>) -> Date? {
        guard word.count == 16 else { return nil }
        var bits: UInt64 = 0
        for byte in word {
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x61...0x66: nibble = byte - 0x61 + 10
            default: return nil
            }
            bits = bits << 4 | UInt64(nibble)
        }
        let interval = Double(bitPattern: bits)
        return interval.isFinite ? Date(timeIntervalSinceReferenceDate: interval) : nil
    }
}
