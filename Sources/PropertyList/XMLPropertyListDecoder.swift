#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// Reads an XML property list (`<?xml …?><plist version="1.0">…</plist>`) straight from its
/// bytes, without Foundation, failing closed on anything malformed.
///
/// Read, as CoreFoundation reads them: an optional UTF-8 byte-order mark, an XML declaration
/// (encoding UTF-8 or ASCII), comments, processing instructions and a `<!DOCTYPE …>` without an
/// internal subset around the root; a root `<plist>` (attributes ignored) holding exactly one
/// value, or a bare value without the wrapper; `dict`, `array`, `string`, `integer` (decimal or
/// `0x` hex, optional sign), `real` (also `nan`, `inf`, `infinity`), `true`, `false`, `date`
/// (`YYYY-MM-DDTHH:MM:SSZ`), `data` (base64, whitespace ignored) and the empty forms
/// `<string/>`, `<array/>`, `<dict/>`, `<data/>`; the five named entities, `&#NN;` and `&#xNN;`,
/// and CDATA sections in strings and keys.
///
/// Refused, each with a one-line ``PropertyListError/malformed(reason:)`` naming the line and
/// column: unclosed or mismatched tags, unknown elements and entities, character references to
/// surrogates or beyond U+10FFFF, invalid UTF-8, a dictionary with the same key twice or a key
/// without a value, `<key>` outside a dictionary, more than one root value or anything but
/// comments after it, integers outside `Int64`, reals, dates and base64 that do not parse
/// exactly, a DOCTYPE internal subset (no entity can be declared, so none can expand), nesting
/// deeper than ``BinaryPropertyListFormat/maximumDepth`` and more than
/// ``BinaryPropertyListFormat/maximumValueCount`` values. Work is linear in the input's size
/// and recursion is bounded by the nesting limit.
struct XMLPropertyListDecoder {
    private typealias Format = BinaryPropertyListFormat

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    private var position = 0
    private var valueCount = 0

    /// The message for input that is neither binary nor XML (for example the OpenStep format).
    static let notXMLReason = "neither a binary (bplist00) nor an XML property list"

    /// Decodes the XML property list in `bytes`.
    ///
    /// - Throws: ``PropertyListError/malformed(reason:)`` as described on the type; never traps
    ///   on any input.
    static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        guard !bytes.isEmpty else { throw .malformed(reason: "empty input") }
        guard bytes.count <= Format.maximumInputSize else {
            throw .malformed(reason: "XML property list of \(bytes.count) bytes exceeds the \(Format.maximumInputSize)-byte limit")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(PropertyListError) in
            var decoder = XMLPropertyListDecoder(bytes: buffer)
            return try decoder.document()
        }
    }

    // MARK: Document

    /// Prolog, the root value (in `<plist>` or bare), then nothing but comments.
    private mutating func document() throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
        } else if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw .malformed(reason: "UTF-16 XML property lists are not supported (only UTF-8)")
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
            throw .malformed(reason: Self.notXMLReason)
        }
        if matches("<?xml") && position + 5 < bytes.count && Self.isWhitespace(bytes[position + 5]) {
            try xmlDeclaration()
        }
        try skipMisc(allowDoctype: true)
        guard position < bytes.count else { throw failure("no property list value in the document") }
        let rootStart = position
        let root = try openTag()
        let value: PropertyListValue
        if root.element == .plist {
            guard !root.selfClosing else { throw failure("<plist> is empty", at: rootStart) }
            try skipMisc(allowDoctype: false)
            guard !matches("</") else { throw failure("<plist> is empty") }
            value = try self.value(depth: 0)
            try skipMisc(allowDoctype: false)
            guard matches("</") else {
                throw failure(position < bytes.count ? "<plist> holds more than one value" : "<plist> is not closed (end of input)")
            }
            try closeTag(.plist)
        } else {
            value = try self.value(tag: root, at: rootStart, depth: 0)
        }
        try skipMisc(allowDoctype: false)
        guard position == bytes.count else { throw failure("content after the root element") }
        return value
    }

    /// `<?xml version="…" encoding="…"?>`: only UTF-8 (or its subset ASCII) is read.
    private mutating func xmlDeclaration() throws(PropertyListError) {
        let start = position
        guard let end = find([UInt8]("?>".utf8), from: position) else { throw failure("the XML declaration is not closed") }
        position = end + 2
        guard let encoding = find([UInt8]("encoding".utf8), from: start, before: end) else { return }
        var index = encoding + 8
        while index < end, Self.isWhitespace(bytes[index]) || bytes[index] == UInt8(ascii: "=") { index += 1 }
        guard index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw failure("the XML declaration's encoding is not quoted", at: start)
        }
        let quote = bytes[index]
        let nameStart = index + 1
        index = nameStart
        while index < end, bytes[index] != quote { index += 1 }
        let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name) else {
            throw failure("encoding \(name.quotedForMessage) is not supported (only UTF-8)", at: start)
        }
    }

    /// Whitespace, comments, processing instructions and (before the root) `<!DOCTYPE …>`.
    private mutating func skipMisc(allowDoctype: Bool) throws(PropertyListError) {
        while true {
            skipWhitespace()
            if matches("<!--") {
                try skipComment()
            } else if matches("<?") {
                let start = position
                guard let end = find([UInt8]("?>".utf8), from: position + 2) else {
                    throw failure("processing instruction is not closed", at: start)
                }
                position = end + 2
            } else if matches("<!DOCTYPE") {
                guard allowDoctype else { throw failure("<!DOCTYPE> after the root element began") }
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(PropertyListError) {
        let start = position
        guard let end = find([UInt8]("-->".utf8), from: position + 4) else { throw failure("comment is not closed", at: start) }
        position = end + 3
    }

    /// `<!DOCTYPE plist PUBLIC "…" "…">`; an internal subset (`[…]`, where entities would be
    /// declared) is refused, as CoreFoundation refuses it.
    private mutating func skipDoctype() throws(PropertyListError) {
        let start = position
        position += 9
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                throw failure("<!DOCTYPE> with an internal subset (entity declarations) is not supported", at: position - 1)
            } else if byte == UInt8(ascii: ">") {
                return
            }
        }
        throw failure("<!DOCTYPE> is not closed", at: start)
    }

    // MARK: Values

    /// The value whose open tag starts at `position`.
    private mutating func value(depth: Int) throws(PropertyListError) -> PropertyListValue {
        let start = position
        guard position < bytes.count else { throw failure("end of input where a value was expected") }
        guard bytes[position] == UInt8(ascii: "<") else { throw failure("text where a value element was expected") }
        return try value(tag: try openTag(), at: start, depth: depth)
    }

    /// The value opened by `tag` (already read; it started at `start`).
    private mutating func value(tag: Tag, at start: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        valueCount += 1
        guard valueCount <= Format.maximumValueCount else {
            throw failure("more than \(Format.maximumValueCount) values", at: start)
        }
        guard let element = tag.element else { throw failure("unknown element <\(name(of: tag))>", at: start) }
        switch element {
        case .dict:
            return tag.selfClosing ? .dictionary([:]) : try dictionary(depth: depth + 1, at: start)
        case .array:
            return tag.selfClosing ? .array([]) : try array(depth: depth + 1, at: start)
        case .string:
            return .string(tag.selfClosing ? "" : try text(in: .string))
        case .true, .false:
            if !tag.selfClosing {
                guard matches("</") else { throw failure("<\(element)> is not empty") }
                try closeTag(element)
            }
            return .boolean(element == .true)
        case .integer:
            return .integer(try scalar(of: tag, at: start, XMLPropertyListScalars.integer))
        case .real:
            return .real(try scalar(of: tag, at: start, XMLPropertyListScalars.real))
        case .date:
            return .date(try scalar(of: tag, at: start, XMLPropertyListDate.date))
        case .data:
            if tag.selfClosing { return .data([]) }
            return .data(try scalar(of: tag, at: start, PropertyListBase64.decode))
        case .key:
            throw failure("<key> outside a <dict>", at: start)
        case .plist:
            throw failure("<plist> inside a value", at: start)
        }
    }

    private mutating func dictionary(depth: Int, at start: Int) throws(PropertyListError) -> PropertyListValue {
        guard depth <= Format.maximumDepth else { throw tooDeep(at: start) }
        var members: [PropertyListDictionary.Member] = []
        while true {
            try skipMisc(allowDoctype: false)
            if matches("</") {
                try closeTag(.dict)
                do throws(PropertyListDictionary.RepeatedKey) { return .dictionary(try PropertyListDictionary(sorting: members)) } catch {
                    throw failure("<dict> has the key \(error.key.quotedForMessage) twice", at: start)
                }
            }
            let keyStart = position
            guard position < bytes.count else { throw failure("<dict> is not closed (end of input)", at: start) }
            guard bytes[position] == UInt8(ascii: "<") else { throw failure("text where <key> was expected in <dict>") }
            let keyTag = try openTag()
            guard keyTag.element == .key else { throw failure("<\(name(of: keyTag))> where <key> was expected in <dict>", at: keyStart) }
            let key = keyTag.selfClosing ? "" : try text(in: .key)
            try skipMisc(allowDoctype: false)
            guard !matches("</") else { throw failure("key \(key.quotedForMessage) has no value", at: keyStart) }
            guard !matches("<key") else { throw failure("key \(key.quotedForMessage) has no value", at: keyStart) }
            members.append(PropertyListDictionary.Member(key: key, value: try value(depth: depth)))
        }
    }

    private mutating func array(depth: Int, at start: Int) throws(PropertyListError) -> PropertyListValue {
        guard depth <= Format.maximumDepth else { throw tooDeep(at: start) }
        var elements: [PropertyListValue] = []
        while true {
            try skipMisc(allowDoctype: false)
            if matches("</") {
                try closeTag(.array)
                return .array(elements)
            }
            guard position < bytes.count else { throw failure("<array> is not closed (end of input)", at: start) }
            elements.append(try value(depth: depth))
        }
    }

    // MARK: Text

    /// The content of a `<string>` or `<key>` up to its close tag: text with entities and CDATA
    /// sections resolved, which must be valid UTF-8.
    private mutating func text(in element: Element) throws(PropertyListError) -> String {
        let start = position
        var end = position
        var combined: UInt8 = 0
        while end < bytes.count, bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "&") {
            combined |= bytes[end]
            end += 1
        }
        let string: String
        if end < bytes.count, bytes[end] == UInt8(ascii: "<"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") {
            // Plain text, the usual case: no copy, and no validation when it is all ASCII.
            let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if combined < 0x80 {
                string = String(decoding: content, as: UTF8.self)
            } else if let valid = String(validating: content, as: UTF8.self) {
                string = valid
            } else {
                throw failure("invalid UTF-8 in <\(element)>", at: start)
            }
            position = end
        } else {
            string = try escapedText(in: element)
        }
        try closeTag(element)
        return string
    }

    /// Text content with `&…;` and `<![CDATA[…]]>`, copied into a buffer as it is resolved.
    private mutating func escapedText(in element: Element) throws(PropertyListError) -> String {
        let start = position
        var resolved: [UInt8] = []
        while true {
            guard position < bytes.count else { throw failure("<\(element)> is not closed (end of input)", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "&") {
                try entity(into: &resolved)
            } else if byte == UInt8(ascii: "<") {
                if matches("</") { break }
                guard matches("<![CDATA[") else { throw failure("markup other than CDATA inside <\(element)>") }
                let sectionStart = position
                guard let end = find([UInt8]("]]>".utf8), from: position + 9) else {
                    throw failure("CDATA section is not closed", at: sectionStart)
                }
                resolved.append(contentsOf: bytes[(position + 9)..<end])
                position = end + 3
            } else {
                resolved.append(byte)
                position += 1
            }
        }
        guard let string = String(validating: resolved, as: UTF8.self) else {
            throw failure("invalid UTF-8 in <\(element)>", at: start)
        }
        return string
    }

    /// Resolves the entity at `position` (`&amp;`, `&#65;`, `&#x41;`, …) into UTF-8.
    private mutating func entity(into resolved: inout [UInt8]) throws(PropertyListError) {
        let start = position
        var end = position + 1
        // Entity names and character references are short: look no further than 32 bytes.
        while end < bytes.count, end - start <= 32, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw failure("'&' that does not start an entity (write &amp;)", at: start)
        }
        let name = bytes[(start + 1)..<end]
        position = end + 1
        switch String(decoding: name, as: UTF8.self) {
        case "amp": resolved.append(UInt8(ascii: "&"))
        case "lt": resolved.append(UInt8(ascii: "<"))
        case "gt": resolved.append(UInt8(ascii: ">"))
        case "quot": resolved.append(UInt8(ascii: "\""))
        case "apos": resolved.append(UInt8(ascii: "'"))
        default:
            guard name.first == UInt8(ascii: "#") else {
                throw failure("unknown entity &\(String(decoding: name, as: UTF8.self));", at: start)
            }
            let hex = name.dropFirst().first == UInt8(ascii: "x")
            let digits = name.dropFirst(hex ? 2 : 1)
            let allDigits = digits.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (hex && byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
            }
            guard !digits.isEmpty, allDigits, let code = UInt32(String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10),
                let scalar = Unicode.Scalar(code)
            else {
                throw failure("character reference &\(String(decoding: name, as: UTF8.self)); is not a Unicode scalar value", at: start)
            }
            UTF8.encode(scalar) { resolved.append($0) }
        }
    }

    /// The content of a scalar element, parsed by `parse`; its problem is reported at `start`.
    private mutating func scalar<Value>(
        of tag: Tag, at start: Int, _ parse: (Substring) throws(XMLPropertyListScalars.Problem) -> Value
    ) throws(PropertyListError) -> Value {
        let content = try scalarText(of: tag, at: start)
        do {
            return try parse(content)
        } catch {
            throw failure("<\(name(of: tag))> \(error.description)", at: start)
        }
    }

    /// The raw content of an `integer`, `real`, `date` or `data` element up to its close tag:
    /// no entities or other markup.
    private mutating func scalarText(of tag: Tag, at start: Int) throws(PropertyListError) -> Substring {
        guard !tag.selfClosing else { throw failure("<\(name(of: tag))> is empty", at: start) }
        let contentStart = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
            guard bytes[position] != UInt8(ascii: "&") else { throw failure("entity inside <\(name(of: tag))>") }
            position += 1
        }
        let content = String(decoding: bytes[contentStart..<position], as: UTF8.self)[...]
        guard matches("</") else {
            throw failure(position < bytes.count ? "markup inside <\(name(of: tag))>" : "<\(name(of: tag))> is not closed (end of input)", at: start)
        }
        try closeTag(tag.element)
        return content
    }

    // MARK: Tags

    /// The elements of a property list.
    private enum Element: String, CustomStringConvertible {
        case plist, dict, array, key, string, integer, real, date, data, `true`, `false`

        var description: String { rawValue }

        /// The element named by `name`, or `nil`: the name's bytes, packed big-endian into an
        /// integer, compared with each element's.
        init?(_ name: Slice<UnsafeBufferPointer<UInt8>>) {
            guard name.count <= 7 else { return nil }
            var packed: UInt64 = 0
            for byte in name { packed = packed << 8 | UInt64(byte) }
            switch packed {
            case 0x6B_6579: self = .key
            case 0x6469_6374: self = .dict
            case 0x7265_616C: self = .real
            case 0x6461_7465: self = .date
            case 0x6461_7461: self = .data
            case 0x7472_7565: self = .true
            case 0x70_6C69_7374: self = .plist
            case 0x61_7272_6179: self = .array
            case 0x66_616C_7365: self = .false
            case 0x7374_7269_6E67: self = .string
            case 0x69_6E74_6567_6572: self = .integer
            default: return nil
            }
        }
    }

    /// An open tag: its element (`nil` if unknown), where its name lies, and whether it closed
    /// itself (`<dict/>`).
    private struct Tag {
        let element: Element?
        let name: Range<Int>
        let selfClosing: Bool
    }

    /// The tag's name as written, for messages.
    private func name(of tag: Tag) -> String {
        String(decoding: bytes[tag.name], as: UTF8.self)
    }

    /// Reads `<name attribute="value" …>` or `<name …/>` at `position`; attributes are checked
    /// for form and ignored.
    private mutating func openTag() throws(PropertyListError) -> Tag {
        let start = position
        position += 1
        let nameRange = self.name()
        let element = Element(bytes[nameRange])
        let name = { [bytes] in String(decoding: bytes[nameRange], as: UTF8.self) }
        guard !nameRange.isEmpty else { throw failure("malformed tag", at: start) }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw failure("tag <\(name())> is not closed (end of input)", at: start) }
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return Tag(element: element, name: nameRange, selfClosing: false)
            case UInt8(ascii: "/"):
                guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") else {
                    throw failure("malformed tag <\(name())>", at: start)
                }
                position += 2
                return Tag(element: element, name: nameRange, selfClosing: true)
            default:
                try attribute(in: name(), tagStart: start)
            }
        }
    }

    /// `name="value"` or `name='value'`.
    private mutating func attribute(in tag: String, tagStart: Int) throws(PropertyListError) {
        guard !self.name().isEmpty else { throw failure("malformed attribute in <\(tag)>") }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { throw failure("attribute without a value in <\(tag)>") }
        position += 1
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw failure("attribute value is not quoted in <\(tag)>")
        }
        let quote = bytes[position]
        position += 1
        while position < bytes.count, bytes[position] != quote {
            guard bytes[position] != UInt8(ascii: "<") else { throw failure("'<' in an attribute value of <\(tag)>") }
            position += 1
        }
        guard position < bytes.count else { throw failure("tag <\(tag)> is not closed (end of input)", at: tagStart) }
        position += 1
    }

    /// `</name>` for `expected` (never `nil`: a tag whose element is unknown is refused before
    /// its content is read), with optional whitespace before the `>`.
    private mutating func closeTag(_ expected: Element?) throws(PropertyListError) {
        let start = position
        let expectedName = expected?.rawValue ?? "?"
        guard matches("</") else { throw failure("expected </\(expectedName)>") }
        position += 2
        let nameRange = self.name()
        let name = { [bytes] in String(decoding: bytes[nameRange], as: UTF8.self) }
        skipWhitespace()
        guard position < bytes.count else { throw failure("</\(name())> is not closed (end of input)", at: start) }
        guard bytes[position] == UInt8(ascii: ">") else { throw failure("malformed close tag </\(name())>", at: start) }
        guard let expected, Element(bytes[nameRange]) == expected else { throw failure("</\(name())> closes <\(expectedName)>", at: start) }
        position += 1
    }

    /// Where a tag or attribute name lies: ASCII letters, digits, `_`, `-`, `.` and `:`.
    private mutating func name() -> Range<Int> {
        let start = position
        while position < bytes.count, position - start < 64 {
            let byte = bytes[position]
            let isNameByte = (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            guard isNameByte else { break }
            position += 1
        }
        return start..<position
    }

    // MARK: Bytes

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    }

    /// Whether the bytes at `position` are `literal` (ASCII).
    private func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count <= bytes.count - position else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[position + offset] != pointer[offset] { return false }
        return true
    }

    /// The first index at or after `start` where `needle` begins and ends by `limit` (by
    /// default the end of the input).
    private func find(_ needle: [UInt8], from start: Int, before limit: Int? = nil) -> Int? {
        let limit = limit ?? bytes.count
        guard let first = needle.first, start <= limit - needle.count else { return nil }
        var index = start
        while index <= limit - needle.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    // MARK: Errors

    /// `problem`, prefixed with the line and column (1-based, in bytes) of `offset`.
    private func failure(_ problem: String, at offset: Int? = nil) -> PropertyListError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return .malformed(reason: "line \(line), column \(offset - lineStart + 1): \(problem)")
    }

    private func tooDeep(at offset: Int) -> PropertyListError {
        failure("containers nest deeper than \(Format.maximumDepth) levels", at: offset)
    }
}
