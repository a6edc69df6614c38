#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value for output, serialised deterministically (keys sorted, no insignificant
/// white space) so that tools and golden tests print byte-identical lines.
public enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer, printed without a fraction or exponent.
    case int(Int64)
    /// A floating-point number; printed without a fraction when whole and below 10^15 in
    /// magnitude, as `null` when not finite.
    case double(Double)
    /// A string, printed with JSON escapes.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, printed with its keys sorted.
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }

    /// An ISO 8601 string for `date`, or `null`.
    public static func date(_ date: Date?) -> JSONValue {
        date.map { .string(ISO8601.string(from: $0)) } ?? .null
    }

    /// `date` as milliseconds since 1970, as StoreKit writes them (a fraction is kept), chosen so
    /// that ``EventDecoder`` reads back exactly `date`: `Date` counts seconds from 2001 in a
    /// `Double`, so the plain product `timeIntervalSince1970 * 1000` can land one unit in the last
    /// place away, and a fact written and read again would move by a fraction of a nanosecond.
    public static func milliseconds(_ date: Date) -> JSONValue {
        let estimate = date.timeIntervalSince1970 * 1000
        var below = estimate, above = estimate
        for _ in 0..<16 {
            if EventDecoder.dateFromMilliseconds(below) == date { return .double(below) }
            if EventDecoder.dateFromMilliseconds(above) == date { return .double(above) }
            below = below.nextDown
            above = above.nextUp
        }
        return .double(estimate)
    }

    /// The compact serialisation, keys in code-point order.
    public var serialized: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of the serialisation. Code-point order is the byte order of UTF-8,
    /// so keys are sorted by their bytes.
    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: (d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)) : "null").utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: the quote, the backslash and control characters escaped, every other byte
    /// of the (always valid) UTF-8 copied.
    private static func writeString(_ s: String, into out: inout [UInt8]) {
        func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(byte >> 4), hexDigit(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
