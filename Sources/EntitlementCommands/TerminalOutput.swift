import FoundationEssentials
import SystemShims
import WidgetTimeline

// How the tools write text for a person: in which charset, and in which time zone.

extension TextCharset {
    /// The charset a tool draws with: ASCII when `--ascii` was given or when the locale's character
    /// set is not UTF-8 (`LANG=C`, `POSIX`, as in many containers and services), box drawing
    /// otherwise. The locale is the first non-empty of `LC_ALL`, `LC_CTYPE` and `LANG`, as the C
    /// library resolves it; no locale at all is taken as a modern UTF-8 terminal.
    static func forOutput(asciiRequested: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> TextCharset {
        asciiRequested || !localeIsUTF8(environment) ? .ascii : .unicode
    }

    static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        if locale.isEmpty { return true }
        return locale.uppercased().filter { $0 != "-" }.contains("UTF8")
    }
}

extension TextTimeZone {
    /// The process's local zone as the C library resolves it (`TZ`, else `/etc/localtime`).
    static let local = TextTimeZone { date in
        LocalTimeZone.secondsEastOfUTC(atSecondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
