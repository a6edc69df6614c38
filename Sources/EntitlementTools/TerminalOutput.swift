import FoundationEssentials
import SystemShims
import WidgetTimeline

// How the tools write text for a person: in which charset, and in which time zone.

extension TextCharset {
    /// The charset a tool draws with: ASCII when `--ascii` was given or when the locale's character
    /// set is not UTF-8 (`LANG=C`, `POSIX`, as in many containers and services), box drawing
    /// otherwise. The locale is the first non-empty of `LC_ALL`, `LC_CTYPE` and `LANG`, as the C
    /// library resolves it; no locale at all is taken as a modern UTF-8 terminal.
    package static func forOutput(asciiRequested: Bool, environment: [String: String]) -> TextCharset {
        forOutput(asciiRequested: asciiRequested, variable: { environment[$0] })
    }

    /// ``forOutput(asciiRequested:environment:)`` with the variables `variable` gives by name (by
    /// default this process's, read one name at a time).
    package static func forOutput(asciiRequested: Bool, variable: (String) -> String? = ProcessEnvironment.value(of:)) -> TextCharset {
        asciiRequested || !localeIsUTF8(variable) ? .ascii : .unicode
    }

    package static func localeIsUTF8(_ environment: [String: String]) -> Bool { localeIsUTF8 { environment[$0] } }

    /// Whether the locale that the variables `variable` gives by name select is a UTF-8 one.
    package static func localeIsUTF8(_ variable: (String) -> String?) -> Bool {
        var locale = ""
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = variable(name), !value.isEmpty {
                locale = value
                break
            }
        }
        if locale.isEmpty { return true }
        // Byte by byte on purpose: String's `contains(_:)` of a string is the regex library's
        // (_StringProcessing), which would then be linked into, and relocated at the start of, every tool.
        let name = Array(locale.uppercased().utf8.filter { $0 != UInt8(ascii: "-") }), utf8 = Array("UTF8".utf8)
        return name.indices.contains { name[$0...].starts(with: utf8) }
    }
}

extension TextTimeZone {
    /// The process's local zone as the C library resolves it (`TZ`, else `/etc/localtime`).
    package static let local = TextTimeZone { date in
        LocalTimeZone.secondsEastOfUTC(atSecondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
