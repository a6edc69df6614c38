/// The proleptic Gregorian calendar counted in whole days from 1970-01-01 (Howard Hinnant's
/// `days_from_civil` / `civil_from_days`), for every date text the package reads or writes: the
/// XML property list's `<date>`, ISO 8601 in `StoreKitFormats` and `WidgetTimeline`, and X.509
/// validity times in `SignedData`. Years are astronomical (year 0 is 1 BC); months are 1–12. Pure
/// integer arithmetic, exact for any `Int64` day count a caller's range checks allow.
package enum CivilCalendar {
    /// Days from 1970-01-01 to `year`-`month`-`day` (negative before it). `day` is not checked
    /// against the month's length: callers validate with ``daysIn(month:year:)`` first.
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01.
    package static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

    /// The number of days in `month` (1–12) of `year`.
    package static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
