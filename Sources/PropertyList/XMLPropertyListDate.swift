#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif
import CivilTime

/// The XML property list's `<date>`: ISO 8601 `YYYY-MM-DDTHH:MM:SSZ` in UTC, whole seconds, on
/// the proleptic Gregorian calendar with astronomical years (year 0 is 1 BC), as CoreFoundation
/// reads and writes it.
enum XMLPropertyListDate {
    /// Years read and written: CoreFoundation writes years beyond 9999 with more digits and
    /// negative years with a `-`; beyond six digits it writes nonsense, so we stop there.
    static let years: ClosedRange<Int64> = -999_999...999_999

    /// Seconds from 1970-01-01 (the civil-day arithmetic's epoch) to 2001-01-01 (the reference date).
    private static let unixToReference: Int64 = 978_307_200

    /// Reads `YYYY-MM-DDTHH:MM:SSZ` (the year 1 to 6 digits, optionally negative). Fields out of
    /// range (month 13, February 30, hour 24, second 60) are refused, where CoreFoundation would
    /// roll them over into the next month, day or minute.
    static func date(_ text: Substring) throws(XMLPropertyListScalars.Problem) -> Date {
        let bytes = Array(text.utf8)
        var malformed: XMLPropertyListScalars.Problem {
            XMLPropertyListScalars.Problem(description: "\(String(text).quotedForMessage) is not YYYY-MM-DDTHH:MM:SSZ")
        }
        // "-MM-DDTHH:MM:SSZ" is 16 bytes; the year comes before it.
        let yearLength = bytes.count - 16
        guard yearLength >= 1 else { throw malformed }
        let negative = bytes[0] == UInt8(ascii: "-")
        let yearDigits = bytes[(negative ? 1 : 0)..<yearLength]
        guard (1...6).contains(yearDigits.count), let magnitude = number(yearDigits) else { throw malformed }
        let year = negative ? -magnitude : magnitude
        let tail = bytes[yearLength...]
        let separators: [(Int, UInt8)] = [(0, 0x2D), (3, 0x2D), (6, 0x54), (9, 0x3A), (12, 0x3A), (15, 0x5A)]  // - - T : : Z
        guard separators.allSatisfy({ tail[yearLength + $0.0] == $0.1 }) else { throw malformed }
        func field(_ offset: Int) -> Int64? { number(tail[(yearLength + offset)..<(yearLength + offset + 2)]) }
        guard let month = field(1), let day = field(4), let hour = field(7), let minute = field(10), let second = field(13) else {
            throw malformed
        }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year), hour <= 23, minute <= 59, second <= 59 else {
            throw XMLPropertyListScalars.Problem(description: "\(String(text).quotedForMessage) has a field out of range")
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - unixToReference
        return Date(timeIntervalSinceReferenceDate: Double(seconds))
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`, rounded down to the whole second (as CoreFoundation
    /// does), or `nil` when it is not finite or its year is outside ``years``.
    static func text(for date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard interval.isFinite, abs(interval) < 4e13 else { return nil }
        let unix = Int64(interval) + unixToReference
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        guard years.contains(year) else { return nil }
        let yearText = String(year.magnitude)
        return (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
            + "-" + twoDigits(month) + "-" + twoDigits(day)
            + "T" + twoDigits(secondOfDay / 3_600) + ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60) + "Z"
    }

    /// The decimal value of ASCII digits (at most 6), or `nil` if any is not a digit.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for byte in digits {
            guard XMLPropertyListScalars.isDecimalDigit(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
