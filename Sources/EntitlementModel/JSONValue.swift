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
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)) : "null"
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }).enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                members[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
