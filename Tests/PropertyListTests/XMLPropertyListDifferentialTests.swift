import Foundation
import TestSupport
import Testing
@testable import PropertyList

/// Our XML codec against the reference, Foundation's `PropertyListSerialization`, both ways on
/// seeded random values (every kind, unicode and control characters, edge-case numbers, dates
/// far from 2001, nesting to 511 levels). XML keeps dates to the whole second, so expectations
/// round dates down first, as both writers do.
@Suite struct XMLPropertyListDifferentialTests {
    static func values(seed: UInt64, count: Int = 40) -> [PropertyListValue] {
        BinaryPropertyListDifferentialTests.randomValues(seed: seed, count: count).map(\.withWholeSecondDates)
    }

    @Test(arguments: [UInt64(101), 202, 303])
    func roundTripsThroughOurXML(seed: UInt64) throws {
        for (index, value) in Self.values(seed: seed).enumerated() {
            let bytes = try XMLPropertyListEncoder.encode(value)
            let decoded = try XMLPropertyListDecoder.decode(bytes)
            #expect(decoded == value, "seed \(seed) value \(index)")
            #expect(try XMLPropertyListEncoder.encode(decoded) == bytes, "seed \(seed) value \(index): not canonical")
        }
    }

    @Test(arguments: [UInt64(11), 22, 33])
    func foundationReadsWhatWeWrite(seed: UInt64) throws {
        for (index, value) in Self.values(seed: seed).enumerated() {
            let decoded = try FoundationPropertyList.decode(XMLPropertyListEncoder.encode(value))
            #expect(decoded == value, "seed \(seed) value \(index): Foundation read \(decoded)")
        }
    }

    @Test(arguments: [UInt64(55), 66, 77])
    func weReadWhatFoundationWrites(seed: UInt64) throws {
        // Fractional dates on purpose: Foundation rounds them down when it writes, and we must
        // read the same instant Foundation reads back from its own output.
        for (index, value) in BinaryPropertyListDifferentialTests.randomValues(seed: seed, count: 40).enumerated() {
            let bytes = try FoundationPropertyList.encode(value, format: .xml)
            let ours = try XMLPropertyListDecoder.decode(bytes)
            #expect(ours == (try FoundationPropertyList.decode(bytes)), "seed \(seed) value \(index)")
            #expect(ours == value.withWholeSecondDates, "seed \(seed) value \(index)")
        }
    }

    @Test(arguments: [1, 100])
    func snapshotShapedSuitesMatchFoundation(entitlements: Int) throws {
        let value = SnapshotShapedValue.make(entitlements: entitlements).withWholeSecondDates
        let foundationBytes = try FoundationPropertyList.encode(value, format: .xml)
        #expect(try PropertyListCodec.decode(foundationBytes) == value)
        #expect(try FoundationPropertyList.decode(PropertyListCodec.encode(value, format: .xml)) == value)
    }

    /// The layout is CoreFoundation's, byte for byte, for a value without reals (whose text
    /// differs: `2` there, `2.0` here, both read back the same).
    @Test func writesTheSameBytesAsFoundation() throws {
        let value: PropertyListValue = .dictionary([
            "s": .string("a & b < c > d \"'"), "i": .integer(-42), "t": .boolean(true), "f": .boolean(false),
            "d": .date(Date(timeIntervalSinceReferenceDate: 800_000_000)), "b": .data(Array(0..<100)), "e": .data([]),
            "a": .array([.array([]), .dictionary([:]), .dictionary(["k": .string("")])]),
        ])
        let ours = String(decoding: try XMLPropertyListEncoder.encode(value), as: UTF8.self)
        let foundation = String(decoding: try FoundationPropertyList.encode(value, format: .xml), as: UTF8.self)
        #expect(ours == foundation)
    }

    /// Dates across the calendar, BC years included: both readers agree on every instant, and
    /// for years 0...9999 both writers write the same text.
    @Test func datesAgreeWithFoundationAcrossTheCalendar() throws {
        var generator = SplitMix(seed: 9)
        var intervals: [Double] = [0, -1, 59, 86_399, 86_400, -63_113_904_000, -63_145_526_400, -63_177_062_400, 3e11, -3e11]
        for _ in 0..<300 { intervals.append(Double(Int64.random(in: -400_000_000_000...400_000_000_000, using: &generator))) }
        for interval in intervals {
            let value = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: interval))
            let ours = try XMLPropertyListEncoder.encode(value)
            #expect(try FoundationPropertyList.decode(ours) == value, "\(interval): \(String(decoding: ours, as: UTF8.self))")
            let foundation = try FoundationPropertyList.encode(value, format: .xml)
            #expect(try XMLPropertyListDecoder.decode(foundation) == value, "\(interval): \(String(decoding: foundation, as: UTF8.self))")
            if let text = XMLPropertyListDate.text(for: Date(timeIntervalSinceReferenceDate: interval)), !text.hasPrefix("-"), text.count == 20 {
                #expect(ours == foundation, "\(interval)")
            }
        }
    }
}

extension PropertyListValue {
    /// The value with every date rounded down to the whole second, as XML stores it.
    var withWholeSecondDates: PropertyListValue {
        switch self {
        case .date(let date): .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let elements): .array(elements.map(\.withWholeSecondDates))
        case .dictionary(let entries): .dictionary(PropertyListDictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value.withWholeSecondDates) }))
        default: self
        }
    }
}
