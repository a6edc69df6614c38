@testable import EntitlementTools
import Testing
import WidgetTimeline

/// Which charset a tool draws with, from the locale the C library would resolve.
@Suite struct TerminalOutputTests {
    @Test(arguments: [
        ([:], true),
        (["LANG": "en_US.UTF-8"], true),
        (["LANG": "en_US.utf8"], true),
        (["LANG": "de_DE.Utf-8@euro"], true),
        (["LANG": "C.UTF-8"], true),
        (["LANG": "C"], false),
        (["LANG": "POSIX"], false),
        (["LANG": "en_US.ISO-8859-1"], false),
        (["LANG": "UTF"], false),
        (["LANG": "U-T-F-8"], true),
        (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_ALL": "", "LC_CTYPE": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_ALL": "", "LC_CTYPE": "", "LANG": "en_US.UTF-8"], true),
        (["LC_CTYPE": "en_US.UTF-8", "LANG": "C"], true),
    ] as [([String: String], Bool)])
    func localeIsUTF8(environment: [String: String], expected: Bool) {
        #expect(TextCharset.localeIsUTF8(environment) == expected)
        #expect(TextCharset.forOutput(asciiRequested: false, environment: environment) == (expected ? .unicode : .ascii))
        #expect(TextCharset.forOutput(asciiRequested: true, environment: environment) == .ascii)
    }
}
