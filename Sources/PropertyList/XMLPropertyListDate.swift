#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

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
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour <= 23, minute <= 59, second <= 59 else {
            throw XMLPropertyListScalars.Problem(description: "\(String(text).quotedForMessage) has a field out of range")
        }
        let days = daysFromCivil(year: year, month: month, day: day)
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
        let (year, month, day) = civil(fromDays: days)
        guard years.contains(year) else { return nil }
        let yearText = String(year.magnitude)
        return (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
            + "-" + twoDigits(month) + "-" + twoDigits(day)
            + "T" + twoDigits(secondOfDay / 3_600) + ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60) + "Z"
    }

    // MARK: Civil calendar (Howard Hinnant's days_from_civil / civil_from_days)

    /// Days from 1970-01-01 to `year`-`month`-`day`.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
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
