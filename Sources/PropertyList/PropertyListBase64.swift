/// Standard base64 (RFC 4648, `+` and `/`, `=` padding) for the XML property list's `<data>`.
enum PropertyListBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each byte's 6-bit value, 64 for `=`, 65 for whitespace, 255 for anything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        table[Int(UInt8(ascii: "="))] = 64
        for byte in [0x20, 0x09, 0x0A, 0x0D] { table[byte] = 65 }
        return table
    }()

    /// Decodes `text`, ignoring whitespace. Strict where CoreFoundation silently drops or
    /// truncates: every other character, `=` anywhere but at the end, and a count of base64
    /// characters that is not a multiple of 4 are refused.
    static func decode(_ text: Substring) throws(XMLPropertyListScalars.Problem) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count / 4 * 3)
        var group: UInt32 = 0
        var groupCount = 0
        var padding = 0
        for byte in text.utf8 {
            let value = values[Int(byte)]
            if value == 65 { continue }
            if value == 255 {
                throw XMLPropertyListScalars.Problem(description: "has \(String(Character(Unicode.Scalar(byte))).debugDescription), which is not base64")
            }
            // After the padding that completes the last group only whitespace may follow.
            guard padding == 0 || (value == 64 && groupCount + padding < 4) else { throw misplacedPadding }
            if value == 64 {
                guard groupCount >= 2 else { throw misplacedPadding }
                padding += 1
                guard groupCount + padding == 4 else { continue }
                if groupCount == 2 {
                    output.append(UInt8(truncatingIfNeeded: group >> 4))
                } else {
                    output.append(UInt8(truncatingIfNeeded: group >> 10))
                    output.append(UInt8(truncatingIfNeeded: group >> 2))
                }
                continue
            }
            group = group << 6 | UInt32(value)
            groupCount += 1
            if groupCount == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                output.append(UInt8(truncatingIfNeeded: group >> 8))
                output.append(UInt8(truncatingIfNeeded: group))
                group = 0
                groupCount = 0
            }
        }
        guard groupCount == 0 || groupCount + padding == 4 else {
            throw XMLPropertyListScalars.Problem(description: "is not a whole number of 4-character base64 groups")
        }
        return output
    }

    /// `bytes` in base64 with padding, as ASCII bytes, in lines of at most `lineLength`
    /// characters, each line preceded by `indent` and followed by a newline.
    static func encode(_ bytes: [UInt8], lineLength: Int, indent: [UInt8], into output: inout [UInt8]) {
        var column = 0
        func emit(_ character: UInt8, _ output: inout [UInt8]) {
            if column == 0 { output.append(contentsOf: indent) }
            output.append(character)
            column += 1
            if column == lineLength { output.append(0x0A); column = 0 }
        }
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            emit(alphabet[Int(group >> 18 & 63)], &output)
            emit(alphabet[Int(group >> 12 & 63)], &output)
            emit(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="), &output)
            emit(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="), &output)
            index += 3
        }
        if column != 0 { output.append(0x0A) }
    }

    private static var misplacedPadding: XMLPropertyListScalars.Problem {
        XMLPropertyListScalars.Problem(description: "has '=' padding before its end")
    }
}
