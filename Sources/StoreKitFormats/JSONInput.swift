/// A parsed JSON document, as input: numbers keep their literal text so that large integers and
/// fractional milliseconds lose nothing until a caller asks for a specific type.
///
/// Package-internal: the decoders (catalog, events) are the public surface; the daemon's own
/// small state file is read with it too.
package enum JSONInput: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared, e.g. `1697679936049.7297`.
    case number(String)
    case string(String)
    case array([JSONInput])
    case object(JSONObject)

    /// A short name of the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object: its members by key (each key once: the parser refuses a repeated one) and
/// its keys in document order, for the few readers to whom order means something (the catalog's
/// entitlements order a paywall's products). Equal to another object with the same members in
/// any order, as a dictionary is.
package struct JSONObject: Sendable, Hashable, Sequence {
    /// The members by key.
    package let members: [String: JSONInput]
    /// The keys, in document order.
    package let keys: [String]

    /// An object of `members`, in no particular order.
    package init(_ members: [String: JSONInput]) { self.init(members: members, keys: Array(members.keys)) }

    init(members: [String: JSONInput], keys: [String]) { (self.members, self.keys) = (members, keys) }

    /// The value of member `key`, or `nil` when the object has none.
    package subscript(key: String) -> JSONInput? { members[key] }

    /// The members as `(key, value)` pairs, in document order.
    package func makeIterator() -> LazyMapSequence<[String], (key: String, value: JSONInput)>.Iterator {
        keys.lazy.map { [members] key in (key, members[key] ?? .null) }.makeIterator()
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }

    package func hash(into hasher: inout Hasher) { hasher.combine(members) }
}

/// Why bytes are not JSON: a one-line problem and the byte offset where it was found.
package struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    var offset: Int
    var problem: String
    package var description: String { "invalid JSON at byte \(offset): \(problem)" }
}

extension JSONInput {
    /// Nesting deeper than this is refused rather than risking the stack.
    static let maximumDepth = 128

    /// Parses exactly one JSON value (RFC 8259) surrounded by optional white space.
    ///
    /// Works in place on contiguous input (`[UInt8]`, `Data`, a `String`'s UTF-8 view); other
    /// collections are copied once.
    package static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONInput {
        try whole(bytes) { parser throws(JSONSyntaxError) in try parser.parseValue(depth: 0) }
    }

    /// Reads the one JSON object `bytes` hold (white space around it allowed) member by member, in
    /// document order, handing each key's UTF-8 bytes (valid during the call) and value to `member`
    /// without building the object, for a reader that matches keys to its fields and refuses a
    /// repeated one itself. `member` returns a problem to stop at (thrown there), or `nil`.
    static func forEachMember(ofObject bytes: some Collection<UInt8>, _ member: (UnsafeBufferPointer<UInt8>, JSONInput) -> String?) throws(JSONSyntaxError) {
        try whole(bytes) { parser throws(JSONSyntaxError) in try parser.parseMembers(depth: 0) { _, key, _, value in member(key, value) } }
    }

    /// What `read` makes of `bytes` (in place when they are contiguous), with white space and
    /// nothing else around it.
    private static func whole<Value>(
        _ bytes: some Collection<UInt8>, _ read: (inout JSONParser) throws(JSONSyntaxError) -> Value
    ) throws(JSONSyntaxError) -> Value {
        var outcome: Value?, failure: JSONSyntaxError?
        func run(_ buffer: UnsafeBufferPointer<UInt8>) {
            var parser = JSONParser(bytes: buffer)
            parser.skipWhitespace()
            do throws(JSONSyntaxError) { outcome = try read(&parser) } catch { failure = error; return }
            parser.skipWhitespace()
            if parser.index != buffer.count { failure = parser.error("unexpected data after the value") }
        }
        if bytes.withContiguousStorageIfAvailable(run) == nil { Array(bytes).withUnsafeBufferPointer(run) }
        guard let outcome, failure == nil else { throw failure ?? JSONSyntaxError(offset: 0, problem: "no value") }
        return outcome
    }
}

/// A recursive-descent parser over bytes that outlive it (the caller's buffer).
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Every open object's members so far (innermost last) and where each key starts: they become
    /// the object's dictionary when it closes, sized once rather than grown member by member.
    private var openMembers: [(key: String, offset: Int, value: JSONInput)] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ problem: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, problem: problem) }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONInput {
        guard depth < JSONInput.maximumDepth else { throw error("nesting deeper than \(JSONInput.maximumDepth)") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        guard word.withUTF8Buffer({ $0.elementsEqual(bytes[index..<index + count]) }) else { throw error("unexpected character") }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONInput {
        let first = openMembers.count
        defer { openMembers.removeSubrange(first...) }
        try parseMembers(depth: depth) { parser, key, offset, value in
            parser.openMembers.append((String(decoding: key, as: UTF8.self), offset, value))
            return nil
        }
        var members = [String: JSONInput](minimumCapacity: openMembers.count - first)
        for member in openMembers[first...] {
            // Two readers of one object with a repeated key can disagree on its value (first or
            // last wins), which is how a verified field gets smuggled past a check: refuse it.
            guard members.updateValue(member.value, forKey: member.key) == nil else {
                index = member.offset
                throw error("duplicate key \(String(reflecting: String(member.key.prefix(64))))")
            }
        }
        return .object(JSONObject(members: members, keys: openMembers[first...].map { $0.key }))
    }

    /// Reads the object at `index` member by member, handing the parser, each key's UTF-8 bytes,
    /// where the key starts and its value to `member`, which returns a problem to refuse the
    /// object with (at that member's key), or `nil`.
    mutating func parseMembers(depth: Int, _ member: (inout JSONParser, UnsafeBufferPointer<UInt8>, Int, JSONInput) -> String?) throws(JSONSyntaxError) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw error("expected an object") }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyStart = index
            // A key without escapes is handed over as the input's own bytes; one with escapes decoded.
            var key = 0..<0, escapedKey: String?
            if let plain = try parsePlainString() { key = plain } else { escapedKey = try parseEscapedString() }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            if let problem = escapedKey.map({ var key = $0; return key.withUTF8 { member(&self, $0, keyStart, value) } }) ?? member(&self, UnsafeBufferPointer(rebasing: bytes[key]), keyStart, value) {
                index = keyStart
                throw error(problem)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONInput {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array([]) }
        var items: [JSONInput] = []
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']'")
        }
        return .array(items)
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count, parser.bytes[parser.index] >= 0x30, parser.bytes[parser.index] <= 0x39 {
                parser.index += 1
            }
            return parser.index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits(&self) > 0 else { throw error("expected a digit") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// A string without escapes or control characters (keys, identifiers, enumeration values)
    /// becomes a `String` straight from the input: no intermediate copy, and no validation
    /// when it is ASCII. Anything else takes ``parseEscapedString()``.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        guard let content = try parsePlainString() else { return try parseEscapedString() }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[content]), as: UTF8.self)
    }

    /// Where the content of the string at `index` lies in the input, once it is read and its
    /// UTF-8 checked, when it has no escapes or control characters; else `nil`, `index` unmoved.
    mutating func parsePlainString() throws(JSONSyntaxError) -> Range<Int>? {
        let start = index + 1
        var scan = start
        var highBits: UInt8 = 0
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte == UInt8(ascii: "\"") {
                index = scan + 1
                if highBits & 0x80 != 0, String(validating: UnsafeBufferPointer(rebasing: bytes[start..<scan]), as: UTF8.self) == nil {
                    throw error("string is not valid UTF-8")
                }
                return start..<scan
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            highBits |= byte
            scan += 1
        }
        return nil
    }

    /// The general string path: escapes decoded into a byte buffer, validated at the end.
    mutating func parseEscapedString() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars: [UInt8] = []
        var chunkStart = index
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: bytes[chunkStart..<index])
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return text
            }
            if byte < 0x20 { throw error("control character in string") }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            scalars.append(contentsOf: bytes[chunkStart..<index])
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append(0x22)
            case UInt8(ascii: "\\"): scalars.append(0x5C)
            case UInt8(ascii: "/"): scalars.append(0x2F)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw error("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(contentsOf: String(scalar).utf8)
            default: throw error("invalid escape")
            }
            chunkStart = index
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        let digits = UnsafeBufferPointer(rebasing: bytes[index..<index + 4])
        // Hex digits only: `UInt32(_:radix:)` alone would take a sign.
        guard digits.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }), let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        index += 4
        return value
    }
}
