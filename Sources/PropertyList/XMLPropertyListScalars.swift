/// The text forms of the XML property list's `<integer>` and `<real>`, as CoreFoundation reads
/// and writes them.
enum XMLPropertyListScalars {
    /// Why an element's text is not a value of its kind; the decoder adds the element and line.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// A decimal or `0x` hexadecimal integer with an optional `+` or `-`, no whitespace
    /// (CoreFoundation refuses it too), within `Int64`.
    static func integer(_ text: Substring) throws(Problem) -> Int64 {
        var digits = text.utf8[...]
        guard let first = digits.first else { throw Problem(description: "is empty") }
        let negative = first == UInt8(ascii: "-")
        if negative || first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { throw Problem(description: "\(String(text).quotedForMessage) has no digits") }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard let digit = Self.digitValue(byte), UInt64(digit) < radix else {
                throw Problem(description: "\(String(text).quotedForMessage) is not a \(radix == 16 ? "hexadecimal" : "decimal") integer")
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { throw outOfRange(text) }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw outOfRange(text) }
            return Int64(bitPattern: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw outOfRange(text) }
        return Int64(magnitude)
    }

    /// A decimal real (`-1.5`, `.5`, `1.`, `2e-3`) or one of `nan`, `inf`, `infinity` (any
    /// case; the last two with an optional sign), no whitespace. Hexadecimal reals are refused,
    /// as CoreFoundation refuses them; beyond `Double`'s range reads as infinity, as `strtod` does.
    static func real(_ text: Substring) throws(Problem) -> Double {
        let lowered = text.lowercased()
        switch lowered {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix { Self.isDecimalDigit($0) }.count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix { Self.isDecimalDigit($0) }.count
            bytes = bytes.dropFirst(fractionDigits)
        }
        var wellFormed = integerDigits + fractionDigits > 0
        if let exponent = bytes.first, exponent | 0x20 == UInt8(ascii: "e") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix { Self.isDecimalDigit($0) }.count
            wellFormed = wellFormed && exponentDigits > 0
            bytes = bytes.dropFirst(exponentDigits)
        }
        guard wellFormed, bytes.isEmpty, let value = Double(String(text)) else {
            throw Problem(description: "\(String(text).quotedForMessage) is not a decimal number")
        }
        return value
    }

    /// How a real is written: Swift's shortest text that reads back to the same `Double`, and
    /// `nan`, `+infinity`, `-infinity` as CoreFoundation writes them.
    static func text(for real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
        return real.description
    }

    private static func outOfRange(_ text: Substring) -> Problem {
        Problem(description: "\(String(text).quotedForMessage) is outside the 64-bit signed range")
    }

    static func isDecimalDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The value of a decimal or hexadecimal digit (either case), or `nil`.
    private static func digitValue(_ byte: UInt8) -> UInt8? {
        if isDecimalDigit(byte) { return byte - UInt8(ascii: "0") }
        let lower = byte | 0x20
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") { return lower - UInt8(ascii: "a") + 10 }
        return nil
    }
}
