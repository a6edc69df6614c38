#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CivilTime

/// The zone text output writes instants in, for people: local civil time with its offset from UTC,
/// `2026-11-23 14:05:41 +01:00`. (JSON output stays in UTC, ISO 8601, as the contract says.)
///
/// A zone is a function from an instant to its offset, so daylight saving time is honoured per
/// instant. The renderers take one as an argument and read no environment themselves; the tools
/// pass the C library's local zone (`TZ`).
public struct TextTimeZone: Sendable {
    private let offsetAt: @Sendable (Date) -> Int

    /// - Parameter secondsEastOfUTC: the zone's offset from UTC at an instant, in seconds (positive
    ///   east of Greenwich). Called once per instant written; must be cheap and thread-safe.
    public init(secondsEastOfUTC: @escaping @Sendable (Date) -> Int) {
        offsetAt = secondsEastOfUTC
    }

    /// UTC itself (`+00:00`).
    public static let utc = TextTimeZone { _ in 0 }

    /// A zone with one offset all year, `seconds` east of UTC.
    public static func fixed(secondsEastOfUTC seconds: Int) -> TextTimeZone {
        TextTimeZone { _ in seconds }
    }

    /// The offset from UTC in effect at `date`, in seconds east.
    public func secondsEastOfUTC(at date: Date) -> Int { offsetAt(date) }

    /// `2026-11-23 14:05:41 +01:00`: the local date and time of `date` (whole seconds, a fraction
    /// is dropped) and the offset in effect then.
    public func timestamp(_ date: Date) -> String {
        let (days, secondsOfDay, offset) = local(date)
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2)) \(Self.clock(secondsOfDay)) \(Self.offsetText(offset))"
    }

    /// `14:05:41`: the local time of day of `date`, with no zone; pair it with ``offset(at:)``.
    public func clock(_ date: Date) -> String { Self.clock(local(date).secondsOfDay) }

    /// `+01:00`, `-03:30`, `+00:00`: the offset from UTC in effect at `date`.
    public func offset(at date: Date) -> String { Self.offsetText(offsetAt(date)) }

    private func local(_ date: Date) -> (days: Int64, secondsOfDay: Int64, offset: Int) {
        let offset = offsetAt(date)
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400, offset)
    }

    private static func clock(_ secondsOfDay: Int64) -> String {
        "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
    }

    private static func offsetText(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + pad(Int64(minutes / 60), 2) + ":" + pad(Int64(minutes % 60), 2)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
