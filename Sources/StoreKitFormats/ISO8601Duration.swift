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
        (self.years, self.months, self.weeks, self.days) = (years, months, weeks, days)
        (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
    }

    /// The designator of each component, in the order the text must write them: the date's
    /// (`Y`, `M`, `W`, `D`), then, after `T`, the time's (`H`, `M`, `S`), from ``firstTimePart`` on.
    private static let designators = Array("YMWDHMS".utf8), firstTimePart = 4

    /// The components, in the order of ``designators``.
    private var components: [Int] { [years, months, weeks, days, hours, minutes, seconds] }

    /// Parses `PnYnMnWnDTnHnMnS` (each part optional, at least one present, non-negative integers,
    /// each at most 100 000). Returns `nil` for anything else, including fractions and signs.
    public init?(_ text: String) {
        var bytes = Substring(text).utf8[...]
        guard bytes.popFirst() == UInt8(ascii: "P") else { return nil }
        var components = [Int](repeating: 0, count: Self.designators.count)
        var inTime = false
        var next = 0  // the first part that may still come
        while let first = bytes.first {
            if first == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                bytes.removeFirst()
                guard !bytes.isEmpty else { return nil }
                continue
            }
            var value = 0, digits = 0
            while let d = bytes.first, d >= 0x30, d <= 0x39 {
                value = value * 10 + Int(d - 0x30)
                digits += 1
                guard value <= 100_000 else { return nil }
                bytes.removeFirst()
            }
            let parts = inTime ? max(next, Self.firstTimePart)..<Self.designators.count : next..<Self.firstTimePart
            guard digits > 0, let designator = bytes.popFirst(), let part = parts.first(where: { Self.designators[$0] == designator })
            else { return nil }
            components[part] = value
            next = part + 1
        }
        guard next > 0 else { return nil }
        self.init(years: components[0], months: components[1], weeks: components[2], days: components[3],
                  hours: components[4], minutes: components[5], seconds: components[6])
    }

    /// The canonical text, e.g. `P1M`, `P1W`, `P1DT12H`; `PT0S` for the empty duration.
    public var description: String {
        var text = "P"
        for (part, value) in components.enumerated() where value != 0 {
            if part >= Self.firstTimePart, !text.contains("T") { text += "T" }
            text += "\(value)" + String(UnicodeScalar(Self.designators[part]))
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
