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

    /// An object of `members` (in no particular order).
    package static func object(_ members: [String: JSONInput]) -> JSONInput { .object(JSONObject(members)) }

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

/// A JSON object's members in document order, as two parallel arrays. A small object is never
/// hashed or sorted: the decoders ask it for a few keys, which a comparison of small strings finds
/// sooner, and a one-shot tool's catalog is a tree of such small objects (building a hashed table
/// per object was most of reading it). An object of ``indexedCount`` members or more also keeps its
/// positions in key order, so that no look-up costs the object's size, whoever asks and how often
/// (a decoder may ask a large object once per item of a long array beside it). Keys are unique (the
/// parser refuses a repeated one). Equal to another object with the same members in any order, as
/// a dictionary is.
package struct JSONObject: Sendable, Hashable, Sequence {
    /// The members, held by reference: an object is one word inside a `JSONInput`, whatever it keeps.
    private let storage: Storage

    private final class Storage: Sendable {
        let keys: [String]
        let values: [JSONInput]
        /// The positions of `keys` ordered by key, for an object of ``JSONObject/indexedCount``
        /// members or more; `nil` for a smaller one.
        let keyOrder: [Int]?

        init(keys: [String], values: [JSONInput]) {
            self.keys = keys
            self.values = values
            guard keys.count >= JSONObject.indexedCount else {
                keyOrder = nil
                return
            }
            var order: [Int] = []
            order.reserveCapacity(keys.count)
            for position in keys.indices { order.append(position) }
            order.sort { keys[$0] < keys[$1] }
            keyOrder = order
        }
    }

    /// From how many members an object is looked up through its key order, and a repeated key
    /// is found through a set while it is parsed, rather than by comparing every key.
    static let indexedCount = 16

    /// The keys, in document order; `values[i]` belongs to `keys[i]`.
    package var keys: [String] { storage.keys }
    package var values: [JSONInput] { storage.values }

    /// Whether look-ups go through the key order (the object has ``indexedCount`` members or more).
    package var isIndexed: Bool { storage.keyOrder != nil }

    init(keys: [String], values: [JSONInput]) {
        storage = Storage(keys: keys, values: values)
    }

    /// An object of `members`, in no particular order.
    package init(_ members: [String: JSONInput]) {
        self.init(keys: Array(members.keys), values: Array(members.values))
    }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }

    /// The value of member `key`, or `nil` when the object has none: a comparison of each key in
    /// a small object, a binary search of the key order in a large one.
    package subscript(key: String) -> JSONInput? {
        let keys = storage.keys
        guard let keyOrder = storage.keyOrder else {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return storage.values[index]
        }
        var low = 0, high = keyOrder.count
        while low < high {
            let middle = low + (high - low) / 2
            if keys[keyOrder[middle]] < key { low = middle + 1 } else { high = middle }
        }
        guard low < keyOrder.count, keys[keyOrder[low]] == key else { return nil }
        return storage.values[keyOrder[low]]
    }

    package func makeIterator() -> Iterator { Iterator(object: self) }

    /// The members as `(key, value)` pairs, in document order.
    package struct Iterator: IteratorProtocol {
        let object: JSONObject
        var position = 0

        package mutating func next() -> (key: String, value: JSONInput)? {
            guard position < object.keys.count else { return nil }
            defer { position += 1 }
            return (object.keys[position], object.values[position])
        }
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs where rhs[key] != value { return false }
        return true
    }

    /// Independent of the members' order, like ``==``.
    package func hash(into hasher: inout Hasher) {
        var members = 0
        for (key, value) in self {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            members ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(members)
    }
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
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer: buffer) }
        }
        if let inPlace { return try inPlace.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try parse(buffer: buffer) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONInput {
        var parser = JSONParser(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected data after the value") }
        return value
    }
}

/// A recursive-descent parser over bytes that outlive it (the caller's buffer).
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// What an object's key and value arrays reserve when it opens: the objects of catalogs are
    /// small, so most never grow, and none is copied out of a scratch list when it closes. Not
    /// more: a line of small objects holds these slots for each (a 1 MB line of `{"a":1}` peaks at
    /// 45 MB with 4, 66 MB with 8, 36 MB with a dictionary per object). An array's items grow
    /// from nothing, which costs a catalog no more (a 1 MB line of `[1]` peaks at 32 MB).
    static let objectCapacity = 4

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
        let matches = word.withUTF8Buffer { expected in
            expected.indices.allSatisfy { expected[$0] == bytes[index + $0] }
        }
        guard matches else { throw error("unexpected character") }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONInput {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(keys: [], values: []))
        }
        var keys: [String] = [], values: [JSONInput] = []
        keys.reserveCapacity(Self.objectCapacity)
        values.reserveCapacity(Self.objectCapacity)
        // Repeats are found by comparison while the object is small, by a set once it is not.
        var largeObjectKeys: Set<String>?
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            // Two readers of one object with a repeated key can disagree on its value (first or
            // last wins), which is how a verified field gets smuggled past a check: refuse it.
            if Self.isRepeated(key, among: keys, largeObjectKeys: &largeObjectKeys) {
                throw error("duplicate key \(String(reflecting: String(key.prefix(64))))")
            }
            keys.append(key)
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}'")
        }
        return .object(JSONObject(keys: keys, values: values))
    }

    /// Whether `key` is among `keys` (the open object's); `largeObjectKeys` holds them all once
    /// there are many.
    private static func isRepeated(_ key: String, among keys: [String], largeObjectKeys: inout Set<String>?) -> Bool {
        if keys.count < JSONObject.indexedCount { return keys.contains(key) }
        if largeObjectKeys == nil { largeObjectKeys = Set(keys) }
        return largeObjectKeys?.insert(key).inserted == false
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONInput {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
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
        let start = index + 1
        var scan = start
        var highBits: UInt8 = 0
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[start..<scan])
                index = scan + 1
                if highBits & 0x80 == 0 { return String(decoding: content, as: UTF8.self) }
                guard let text = String(validating: content, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            highBits |= byte
            scan += 1
        }
        return try parseEscapedString()
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
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }
}
