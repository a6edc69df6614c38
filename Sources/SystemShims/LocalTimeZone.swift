import Glibc

/// The local time zone as the C library resolves it (`TZ`, else `/etc/localtime`), read through
/// `localtime_r` and `tm_gmtoff`: no zone database of our own and nothing from Foundation, so the
/// tools stay free of ICU.
package enum LocalTimeZone {
    /// `tzset` once per process, before the first conversion, so `TZ` is read as the process started.
    private static let initialised: Bool = {
        tzset()
        return true
    }()

    /// Seconds east of UTC in effect at `secondsSince1970` (daylight saving time included), or 0
    /// when the C library cannot convert that instant.
    package static func secondsEastOfUTC(atSecondsSince1970 seconds: Int64) -> Int {
        _ = initialised
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
