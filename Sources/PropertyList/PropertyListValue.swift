#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// One value of a property list, as `UserDefaults` and `plutil` know them.
///
/// A closed, `Sendable` enum in place of `Any`, so that values can cross isolation domains and be
/// compared. Integers are 64-bit signed; dates are absolute instants (a property list stores them
/// as seconds since 2001-01-01 00:00:00 UTC, so sub-microsecond precision is not kept).
public enum PropertyListValue: Sendable, Hashable {
    /// `<string>`: Unicode text.
    case string(String)
    /// `<integer>`: a 64-bit signed integer.
    case integer(Int64)
    /// `<real>`: a double-precision number.
    case real(Double)
    /// `<true/>` or `<false/>`.
    case boolean(Bool)
    /// `<date>`: an instant, stored as seconds since 2001-01-01 00:00:00 UTC.
    case date(Date)
    /// `<data>`: raw bytes (base64 in XML).
    case data([UInt8])
    /// `<array>`: values in order.
    case array([PropertyListValue])
    /// `<dict>`: values by string key; keys are unique.
    case dictionary(PropertyListDictionary)
}

extension PropertyListValue {
    /// The string, or `nil` for any other kind.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The boolean, or `nil` for any other kind (no conversion from integers).
    public var boolValue: Bool? { if case .boolean(let v) = self { v } else { nil } }
    /// The date, or `nil` for any other kind.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The bytes, or `nil` for any other kind.
    public var dataValue: [UInt8]? { if case .data(let v) = self { v } else { nil } }
    /// The elements, or `nil` for any other kind.
    public var arrayValue: [PropertyListValue]? { if case .array(let v) = self { v } else { nil } }
    /// The entries, or `nil` for any other kind.
    public var dictionaryValue: PropertyListDictionary? { if case .dictionary(let v) = self { v } else { nil } }

    /// The value as an integer: an `.integer`, or a `.real` that is a whole number in range.
    public var integerValue: Int64? {
        switch self {
        case .integer(let v): return v
        case .real(let v) where v.rounded() == v && abs(v) < 9.2e18: return Int64(v)
        default: return nil
        }
    }

    /// The value as a floating-point number: a `.real` or an `.integer`.
    public var realValue: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
}

extension PropertyListValue {
    /// The kind of value in words, for error messages: "a string", "an integer", "a dictionary".
    package var kindInWords: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
