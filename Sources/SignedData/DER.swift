/// A strict reader of DER (ITU-T X.690 distinguished encoding), as X.509 certificates use it.
///
/// Strict: single-byte tags only (X.509 needs no others), definite lengths in their shortest
/// form, no trailing bytes where one value was expected, BOOLEAN only 0x00 or 0xFF, INTEGER in its
/// shortest two's-complement form, BIT STRING with 0-7 unused bits. Every failure is a
/// ``DERError`` naming what was wrong; nothing is guessed.
struct DERReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    /// Reads `bytes[range]` (the whole array by default).
    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        self.position = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { position == end }

    /// The next element's tag, without consuming it; `nil` at the end.
    var peekTag: UInt8? { position < end ? bytes[position] : nil }

    /// The next element: its tag, where its whole encoding (header and content) lies, and where
    /// its content lies.
    mutating func next() throws(DERError) -> DERElement {
        let start = position
        guard position < end else { throw DERError("unexpected end of data") }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw DERError("multi-byte tag") }
        position += 1
        guard position < end else { throw DERError("missing length") }
        let first = bytes[position]
        position += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count > 0 else { throw DERError("indefinite length") }
            guard count <= 4 else { throw DERError("length of \(count) bytes") }
            guard end - position >= count else { throw DERError("truncated length") }
            guard bytes[position] != 0 else { throw DERError("length not in its shortest form") }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
            guard length >= 0x80 else { throw DERError("length not in its shortest form") }
        }
        guard length <= end - position else { throw DERError("length \(length) runs past the end") }
        let content = position..<(position + length)
        position += length
        return DERElement(tag: tag, encoding: start..<position, content: content)
    }

    /// The next element, which must carry `tag`.
    mutating func next(_ tag: UInt8, _ what: String) throws(DERError) -> DERElement {
        let element = try next()
        guard element.tag == tag else {
            throw DERError("\(what): expected tag 0x\(String(tag, radix: 16)), found 0x\(String(element.tag, radix: 16))")
        }
        return element
    }

    /// The next element if it carries `tag`, else `nil` (nothing consumed).
    mutating func optional(_ tag: UInt8) throws(DERError) -> DERElement? {
        guard peekTag == tag else { return nil }
        return try next()
    }

    /// A reader over `element`'s content.
    func reader(inside element: DERElement) -> DERReader { DERReader(bytes, range: element.content) }

    func content(of element: DERElement) -> [UInt8] { Array(bytes[element.content]) }

    func encoding(of element: DERElement) -> [UInt8] { Array(bytes[element.encoding]) }

    /// Throws unless every byte was read.
    func expectEnd(_ what: String) throws(DERError) {
        guard isAtEnd else { throw DERError("\(what): unexpected data after the last element") }
    }

    // MARK: Universal types

    static let boolean: UInt8 = 0x01, integer: UInt8 = 0x02, bitString: UInt8 = 0x03, octetString: UInt8 = 0x04
    static let null: UInt8 = 0x05, objectIdentifier: UInt8 = 0x06, utcTime: UInt8 = 0x17, generalizedTime: UInt8 = 0x18
    static let sequence: UInt8 = 0x30, set: UInt8 = 0x31

    mutating func boolean(_ what: String) throws(DERError) -> Bool {
        let element = try next(Self.boolean, what)
        guard element.content.count == 1 else { throw DERError("\(what): BOOLEAN of \(element.content.count) bytes") }
        switch bytes[element.content.lowerBound] {
        case 0x00: return false
        case 0xFF: return true
        default: throw DERError("\(what): BOOLEAN neither 0x00 nor 0xFF")
        }
    }

    /// An INTEGER's content bytes (two's complement, big-endian), checked to be minimal.
    mutating func integer(_ what: String) throws(DERError) -> ArraySlice<UInt8> {
        let element = try next(Self.integer, what)
        let content = bytes[element.content]
        guard let first = content.first else { throw DERError("\(what): empty INTEGER") }
        if content.count > 1 {
            let second = content[content.startIndex + 1]
            guard !(first == 0x00 && second & 0x80 == 0), !(first == 0xFF && second & 0x80 != 0) else {
                throw DERError("\(what): INTEGER not in its shortest form")
            }
        }
        return content
    }

    /// A BIT STRING's bits as whole bytes: refused unless the unused-bit count is zero.
    mutating func bitStringBytes(_ what: String) throws(DERError) -> [UInt8] {
        let element = try next(Self.bitString, what)
        guard let unused = bytes[element.content].first else { throw DERError("\(what): empty BIT STRING") }
        guard unused == 0 else { throw DERError("\(what): BIT STRING with \(unused) unused bits") }
        return Array(bytes[(element.content.lowerBound + 1)..<element.content.upperBound])
    }

    /// An OBJECT IDENTIFIER, checked to be well formed (no leading 0x80 in a sub-identifier, the
    /// last byte ending a sub-identifier).
    mutating func objectIdentifier(_ what: String) throws(DERError) -> DERObjectIdentifier {
        let element = try next(Self.objectIdentifier, what)
        let content = Array(bytes[element.content])
        guard let identifier = DERObjectIdentifier(encoded: content) else { throw DERError("\(what): malformed OBJECT IDENTIFIER") }
        return identifier
    }
}

/// One DER element: its tag and the byte ranges (in the reader's array) of its whole encoding
/// and of its content.
struct DERElement {
    var tag: UInt8
    var encoding: Range<Int>
    var content: Range<Int>
}

/// Why bytes are not the DER that was expected.
struct DERError: Error, Sendable, Hashable, CustomStringConvertible {
    var problem: String
    init(_ problem: String) { self.problem = problem }
    var description: String { problem }
}

/// An OBJECT IDENTIFIER as its DER content bytes (compared byte for byte).
struct DERObjectIdentifier: Sendable, Hashable, CustomStringConvertible {
    let encoded: [UInt8]

    /// Checks `encoded` is a well-formed identifier body.
    init?(encoded: [UInt8]) {
        guard let last = encoded.last, last & 0x80 == 0 else { return nil }
        var startsComponent = true
        for byte in encoded {
            if startsComponent, byte == 0x80 { return nil }
            startsComponent = byte & 0x80 == 0
        }
        self.encoded = encoded
    }

    /// From dotted text such as `1.2.840.10045.2.1`; traps on malformed text (constants only).
    init(_ dotted: StaticString) {
        let parts = "\(dotted)".split(separator: ".").map { UInt64($0)! }
        var out: [UInt8] = []
        for value in [parts[0] * 40 + parts[1]] + parts.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(value & 0x7F)]
            var rest = value >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            out += chunk
        }
        self.init(encoded: out)!
    }

    /// Dotted text, for messages.
    var description: String {
        var components: [UInt64] = []
        var value: UInt64 = 0
        for byte in encoded {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                components.append(value)
                value = 0
            }
        }
        guard let first = components.first else { return "" }
        let head = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + components.dropFirst()).map(String.init).joined(separator: ".")
    }

    static let ecPublicKey = DERObjectIdentifier("1.2.840.10045.2.1")
    static let prime256v1 = DERObjectIdentifier("1.2.840.10045.3.1.7")
    static let secp384r1 = DERObjectIdentifier("1.3.132.0.34")
    static let ecdsaWithSHA256 = DERObjectIdentifier("1.2.840.10045.4.3.2")
    static let ecdsaWithSHA384 = DERObjectIdentifier("1.2.840.10045.4.3.3")
    static let basicConstraints = DERObjectIdentifier("2.5.29.19")
    /// Apple's marker on the App Store's receipt-signing leaf certificate.
    static let appleReceiptSigningLeaf = DERObjectIdentifier("1.2.840.113635.100.6.11.1")
    /// Apple's marker on the Worldwide Developer Relations intermediate certificate.
    static let appleWWDRIntermediate = DERObjectIdentifier("1.2.840.113635.100.6.2.1")
}
