#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CivilTime

/// ISO 8601 instants in the one form the contract prints: `2026-11-22T01:34:49Z`, with
/// milliseconds (`.123`) only when the instant has them. Pure arithmetic: no formatter, no locale,
/// no time zone database, safe from any thread.
public enum ISO8601 {
    /// Formats `date` in UTC. Millisecond precision; a fraction below that is truncated.
    public static func string(from date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = totalMillis >= 0 ? totalMillis / 86_400_000 : (totalMillis - 86_399_999) / 86_400_000
        let millisOfDay = totalMillis - days * 86_400_000
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        let seconds = millisOfDay / 1000, millis = millisOfDay % 1000
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        if millis != 0 { text += "." + pad(millis, 3) }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` for anything else, including
    /// out-of-range fields. A date alone (`YYYY-MM-DD`) means midnight UTC.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year)
        else { return nil }
        var secondsOfDay: Int64 = 0, fraction = 0.0, offset: Int64 = 0
        if index < bytes.count {
            guard expect(0x54) || expect(0x74), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
                  let second = number(2), hour < 24, minute < 60, second < 60
            else { return nil }
            secondsOfDay = hour * 3600 + minute * 60 + second
            if expect(0x2E) {
                var scale = 0.1, digits = 0
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                    digits += 1
                }
                guard digits > 0 else { return nil }
            }
            if expect(0x5A) || expect(0x7A) {
                offset = 0
            } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
                let sign: Int64 = bytes[index] == 0x2D ? -1 : 1
                index += 1
                guard let oh = number(2), expect(0x3A), let om = number(2), oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let seconds = CivilCalendar.days(year: year, month: month, day: day) * 86_400 + secondsOfDay - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
