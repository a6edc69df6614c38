/// Writes an XML property list that Foundation's `PropertyListSerialization`, Apple's
/// CoreFoundation, Python's `plistlib` and ``XMLPropertyListDecoder`` read back, laid out as
/// CoreFoundation lays it out (tab indentation, base64 in lines of 68 characters).
///
/// The output is canonical for a given value: dictionary keys sorted as the binary encoder sorts
/// them; `&`, `<` and `>` escaped, and control characters other than tab and newline written as
/// character references (`&#13;`, `&#0;`), so that no reader can normalise them away; reals in
/// Swift's shortest round-tripping form, with `nan`, `+infinity` and `-infinity` spelled as
/// CoreFoundation spells them; dates rounded down to the whole second (XML keeps no fraction).
struct XMLPropertyListEncoder {
    private typealias Format = BinaryPropertyListFormat

    private var output: [UInt8] = []

    private static let header = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    private static let footer = Array("</plist>\n".utf8)
    /// CoreFoundation's line length for `<data>`.
    private static let base64LineLength = 68

    /// Encodes `value`.
    ///
    /// - Throws: ``PropertyListError/encodingFailed(reason:)`` for a date that is not finite or
    ///   whose year is outside ``XMLPropertyListDate/years``, or containers nested deeper than
    ///   ``BinaryPropertyListFormat/maximumDepth`` (our decoder would refuse the file).
    static func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var encoder = XMLPropertyListEncoder()
        encoder.output.reserveCapacity(512)
        encoder.output.append(contentsOf: header)
        try encoder.write(value, depth: 0)
        encoder.output.append(contentsOf: footer)
        return encoder.output
    }

    private mutating func write(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        indent(depth)
        switch value {
        case .string(let string):
            element("string", escaping: string)
        case .integer(let integer):
            element("integer", text: String(integer))
        case .real(let real):
            element("real", text: XMLPropertyListScalars.text(for: real))
        case .boolean(let boolean):
            append(boolean ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            guard let text = XMLPropertyListDate.text(for: date) else {
                throw .encodingFailed(reason: "the date \(date.timeIntervalSinceReferenceDate) s after 2001 is not finite or outside the years \(XMLPropertyListDate.years) that XML can hold")
            }
            element("date", text: text)
        case .data(let bytes):
            append("<data>\n")
            var lineIndent = [UInt8](repeating: 0x09, count: depth)
            PropertyListBase64.encode(bytes, lineLength: Self.base64LineLength, indent: lineIndent, into: &output)
            lineIndent.append(contentsOf: "</data>\n".utf8)
            output.append(contentsOf: lineIndent)
        case .array(let elements):
            guard !elements.isEmpty else { return append("<array/>\n") }
            guard depth < Format.maximumDepth else { throw tooDeep() }
            append("<array>\n")
            for entry in elements { try write(entry, depth: depth + 1) }
            indent(depth)
            append("</array>\n")
        case .dictionary(let entries):
            guard !entries.isEmpty else { return append("<dict/>\n") }
            guard depth < Format.maximumDepth else { throw tooDeep() }
            append("<dict>\n")
            for (key, entry) in entries {
                indent(depth + 1)
                element("key", escaping: key)
                try write(entry, depth: depth + 1)
            }
            indent(depth)
            append("</dict>\n")
        }
    }

    /// `<name>text</name>` and a newline; `text` needs no escaping.
    private mutating func element(_ name: String, text: String) {
        append("<\(name)>")
        append(text)
        append("</\(name)>\n")
    }

    /// `<name>string</name>` and a newline, `string` escaped.
    private mutating func element(_ name: String, escaping string: String) {
        append("<\(name)>")
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case 0x09, 0x0A: output.append(byte)
            case 0..<0x20: append("&#\(byte);")
            default: output.append(byte)
            }
        }
        append("</\(name)>\n")
    }

    private mutating func indent(_ depth: Int) {
        output.append(contentsOf: repeatElement(0x09, count: depth))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private func tooDeep() -> PropertyListError {
        .encodingFailed(reason: "containers nest deeper than \(Format.maximumDepth) levels")
    }
}
