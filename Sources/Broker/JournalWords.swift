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

    static func unescape(_ word: String) -> String? {
        if word == "%" { return "" }
        var bytes: [UInt8] = []
        var utf8 = word.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == 0x25 else { bytes.append(byte); continue }
            guard let high = utf8.next(), let low = utf8.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
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
