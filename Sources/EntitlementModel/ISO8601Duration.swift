#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CivilTime

/// An ISO 8601 duration such as `P1M`, `P1Y`, `P7D`, `P1W` or `P1DT12H`, as `.storekit` files and
/// the catalog's `durations` write them.
///
/// Adding a duration is calendar arithmetic in UTC: years and months move the civil date and clamp
/// the day to the target month (January 31 + `P1M` is February 28 or 29), then weeks, days and the
/// time part are added as fixed lengths.
public struct ISO8601Duration: Sendable, Hashable, CustomStringConvertible {
    /// Calendar years (`Y`).
    public var years: Int
    /// Calendar months (`M` before `T`); the day is clamped to the target month.
    public var months: Int
    /// Weeks (`W`), seven days each.
    public var weeks: Int
    /// Days (`D`), 24 hours each (UTC has no daylight saving).
    public var days: Int
    /// Hours (`H`, after `T`).
    public var hours: Int
    /// Minutes (`M` after `T`).
    public var minutes: Int
    /// Seconds (`S`).
    public var seconds: Int

    /// A duration of the given components; each defaults to zero.
    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Parses `PnYnMnWnDTnHnMnS` (each part optional, at least one present, non-negative integers,
    /// each at most 100 000). Returns `nil` for anything else, including fractions and signs.
    public init?(_ text: String) {
        var bytes = Substring(text).utf8[...]
        guard bytes.first == UInt8(ascii: "P") else { return nil }
        bytes = bytes.dropFirst()
        var result = ISO8601Duration()
        var inTime = false, sawPart = false
        var order = 0 // designators must appear in their canonical order
        while let first = bytes.first {
            if first == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                bytes = bytes.dropFirst()
                guard !bytes.isEmpty else { return nil }
                continue
            }
            var value = 0, digits = 0
            while let d = bytes.first, d >= 0x30, d <= 0x39 {
                value = value * 10 + Int(d - 0x30)
                digits += 1
                guard value <= 100_000 else { return nil }
                bytes = bytes.dropFirst()
            }
            guard digits > 0, let designator = bytes.first else { return nil }
            bytes = bytes.dropFirst()
            let rank: Int
            switch (inTime, designator) {
            case (false, UInt8(ascii: "Y")): rank = 1; result.years = value
            case (false, UInt8(ascii: "M")): rank = 2; result.months = value
            case (false, UInt8(ascii: "W")): rank = 3; result.weeks = value
            case (false, UInt8(ascii: "D")): rank = 4; result.days = value
            case (true, UInt8(ascii: "H")): rank = 5; result.hours = value
            case (true, UInt8(ascii: "M")): rank = 6; result.minutes = value
            case (true, UInt8(ascii: "S")): rank = 7; result.seconds = value
            default: return nil
            }
            guard rank > order else { return nil }
            order = rank
            sawPart = true
        }
        guard sawPart else { return nil }
        self = result
    }

    /// The canonical text, e.g. `P1M`, `P1W`, `P1DT12H`; `PT0S` for the empty duration.
    public var description: String {
        var text = "P"
        if years != 0 { text += "\(years)Y" }
        if months != 0 { text += "\(months)M" }
        if weeks != 0 { text += "\(weeks)W" }
        if days != 0 { text += "\(days)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if seconds != 0 { text += "\(seconds)S" }
        }
        return text == "P" ? "PT0S" : text
    }

    /// `date` moved forward by this duration, computed on the UTC calendar (see the type's doc).
    public func added(to date: Date) -> Date {
        let interval = date.timeIntervalSince1970
        let wholeSeconds = interval.rounded(.down)
        let fraction = interval - wholeSeconds
        let total = Int64(wholeSeconds)
        let dayNumber = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - dayNumber * 86_400
        var (year, month, day) = CivilCalendar.date(fromDays: dayNumber)
        let monthIndex = (year * 12 + (month - 1)) + Int64(years) * 12 + Int64(months)
        year = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        month = monthIndex - year * 12 + 1
        day = min(day, CivilCalendar.daysIn(month: month, year: year))
        let newDay = CivilCalendar.days(year: year, month: month, day: day) + Int64(weeks) * 7 + Int64(days)
        let newSeconds = newDay * 86_400 + secondOfDay + Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)
        return Date(timeIntervalSince1970: Double(newSeconds) + fraction)
    }
}
