import Foundation
import PropertyList
import TestSupport

/// Random property-list values from a seeded generator: every kind, edge-case integers and
/// reals, unicode strings (astral planes, combining marks, NUL), lengths around the 15-element
/// marker boundary, empty containers and some deep nesting.
struct RandomPropertyListValues {
    var generator: SplitMix
    /// Dates in whole milliseconds within ±30 years of 2001 when set, which survive a trip
    /// through Python's microsecond `datetime`; otherwise any finite double within ±1e10 s.
    var millisecondDates = false

    init(seed: UInt64) { generator = SplitMix(seed: seed) }

    private static let alphabet: [String] = [
        "a", "Z", "0", " ", "-", ".", "é", "e\u{301}", "ß", "✓", "中", "😀", "👩‍💻", "𝄞", "\u{FFFD}", "\n", "\0", "~",
    ]
    private static let integers: [Int64] = [
        0, 1, -1, 14, 15, 16, 127, 128, 255, 256, 65_535, 65_536, -128, -32_769,
        Int64(Int32.max), Int64(UInt32.max), Int64(UInt32.max) + 1, .max, .min, .max - 1, .min + 1,
    ]
    private static let reals: [Double] = [0, -0.0, 1, -1, 0.5, 1e-300, -1e300, .infinity, -.infinity, .pi, 2.0, Double(Float(0.1))]

    /// Values still to generate for the current top-level value: keeps trees small (a few
    /// hundred values at most) whatever the dice say.
    private var budget = 0

    /// A random value of at most about 250 values, nested at most 6 deep.
    mutating func value() -> PropertyListValue {
        budget = 250
        return value(depth: 0)
    }

    private mutating func value(depth: Int) -> PropertyListValue {
        budget -= 1
        let containers = depth < 6 && budget > 0
        switch Int.random(in: 0..<(containers ? 12 : 8), using: &generator) {
        case 0: return .string(string())
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .boolean(Bool.random(using: &generator))
        case 4: return .date(date())
        case 5: return .data(data())
        case 6: return .string(asciiString())
        case 7: return .integer(Int64.random(in: -1000...100_000, using: &generator))
        case 8, 9: return .array((0..<min(count(), max(budget, 0))).map { _ in value(depth: depth + 1) })
        default:
            var entries: PropertyListDictionary = [:]
            for _ in 0..<min(count(), max(budget, 0)) { entries[Bool.random(using: &generator) ? asciiString() : string()] = value(depth: depth + 1) }
            return .dictionary(entries)
        }
    }

    /// A chain of `depth` containers, alternating arrays and dictionaries, around a scalar.
    mutating func deeplyNested(depth: Int) -> PropertyListValue {
        var value = PropertyListValue.string(string())
        for level in 0..<depth {
            value = level.isMultiple(of: 2) ? .array([value, .integer(integer())]) : .dictionary(["k\(level)": value])
        }
        return value
    }

    /// Usually small; sometimes 14...16 or 20...40 to cross the 0xF length-marker boundary.
    private mutating func count() -> Int {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return 0
        case 1: return Int.random(in: 14...16, using: &generator)
        case 2: return Int.random(in: 20...40, using: &generator)
        default: return Int.random(in: 1...5, using: &generator)
        }
    }

    private mutating func string() -> String {
        let length = Bool.random(using: &generator) ? count() : Int.random(in: 0...300, using: &generator)
        return (0..<length).map { _ in Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &generator)] }.joined()
    }

    private mutating func asciiString() -> String {
        String((0..<count()).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator))) })
    }

    private mutating func integer() -> Int64 {
        Bool.random(using: &generator)
            ? Self.integers[Int.random(in: 0..<Self.integers.count, using: &generator)]
            : Int64(bitPattern: generator.next())
    }

    private mutating func real() -> Double {
        if Bool.random(using: &generator) { return Self.reals[Int.random(in: 0..<Self.reals.count, using: &generator)] }
        while true {
            let candidate = Double(bitPattern: generator.next())
            if !candidate.isNaN { return candidate }
        }
    }

    private mutating func date() -> Date {
        if millisecondDates {
            let milliseconds = Int64.random(in: -946_080_000_000...946_080_000_000, using: &generator)
            return Date(timeIntervalSinceReferenceDate: Double(milliseconds) / 1000)
        }
        return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &generator))
    }

    private mutating func data() -> [UInt8] {
        let length = Bool.random(using: &generator) ? count() : Int.random(in: 0...400, using: &generator)
        return (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
