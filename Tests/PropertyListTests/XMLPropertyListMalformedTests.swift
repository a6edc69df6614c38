import Foundation
import Testing
@testable import PropertyList

/// Malformed XML property lists: each refused with a one-line reason that names the line and
/// the problem; none crashes or hangs, at any nesting depth or truncation.
@Suite struct XMLPropertyListMalformedTests {
    static func plist(_ body: String) -> String { XMLPropertyListReadingTests.plist(body) }

    /// Name, input, words the reason must contain.
    static let cases: [(String, String, String)] = [
        ("unclosed dict", plist("<dict><key>a</key><true/>").replacingOccurrences(of: "</plist>", with: ""), "not closed"),
        ("unclosed string", "<plist><string>abc", "not closed"),
        ("unclosed tag", "<plist><string", "not closed"),
        ("mismatched tags", plist("<array><string>a</array></string>"), "</array> closes <string>"),
        ("unknown element", plist("<foo/>"), "unknown element <foo>"),
        ("upper-case element", plist("<STRING>x</STRING>"), "unknown element <STRING>"),
        ("unknown entity", plist("<string>&foo;</string>"), "unknown entity &foo;"),
        ("bare ampersand", plist("<string>a & b</string>"), "'&'"),
        ("unterminated entity", plist("<string>&amp</string>"), "'&'"),
        ("empty character reference", plist("<string>&#;</string>"), "not a Unicode scalar"),
        ("surrogate reference", plist("<string>&#xD800;</string>"), "&#xD800; is not a Unicode scalar"),
        ("reference beyond U+10FFFF", plist("<string>&#x110000;</string>"), "not a Unicode scalar"),
        ("huge reference", plist("<string>&#99999999999999999999;</string>"), "not a Unicode scalar"),
        ("upper-case X reference", plist("<string>&#X41;</string>"), "not a Unicode scalar"),
        ("< in text", plist("<string>a < b</string>"), "markup other than CDATA"),
        ("comment in string", plist("<string>a<!-- c -->b</string>"), "markup other than CDATA"),
        ("unclosed CDATA", plist("<string><![CDATA[abc</string>"), "CDATA section is not closed"),
        ("bad base64 character", plist("<data>AA!C</data>"), "not base64"),
        ("base64 without padding", plist("<data>AAECAw</data>"), "4-character base64 groups"),
        ("base64 padding in the middle", plist("<data>AA==AAAA</data>"), "padding"),
        ("base64 only padding", plist("<data>====</data>"), "padding"),
        ("base64 entity", plist("<data>AA&#61;=</data>"), "entity inside <data>"),
        ("CDATA in data", plist("<data><![CDATA[AAAA]]></data>"), "markup inside <data>"),
        ("date without Z", plist("<date>2001-01-01T00:00:00</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date with fraction", plist("<date>2001-01-01T00:00:00.5Z</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date with offset", plist("<date>2001-01-01T00:00:00+01:00</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date one-digit fields", plist("<date>2001-1-1T0:0:0Z</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date with spaces", plist("<date> 2001-01-01T00:00:00Z </date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date seven-digit year", plist("<date>1000000-01-01T00:00:00Z</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date plus sign", plist("<date>+2001-01-01T00:00:00Z</date>"), "not YYYY-MM-DDTHH:MM:SSZ"),
        ("date month 13", plist("<date>2001-13-01T00:00:00Z</date>"), "out of range"),
        ("date February 30", plist("<date>2001-02-30T00:00:00Z</date>"), "out of range"),
        ("date February 29 in 2100", plist("<date>2100-02-29T00:00:00Z</date>"), "out of range"),
        ("date hour 24", plist("<date>2001-01-01T24:00:00Z</date>"), "out of range"),
        ("date second 60", plist("<date>2001-01-01T00:00:60Z</date>"), "out of range"),
        ("empty date", plist("<date></date>"), "<date>"),
        ("integer overflow", plist("<integer>9223372036854775808</integer>"), "outside the 64-bit signed range"),
        ("integer underflow", plist("<integer>-9223372036854775809</integer>"), "outside the 64-bit signed range"),
        ("integer far too long", plist("<integer>" + String(repeating: "9", count: 10_000) + "</integer>"), "outside the 64-bit signed range"),
        ("hex overflow", plist("<integer>0x10000000000000000</integer>"), "outside the 64-bit signed range"),
        ("UInt64.max", plist("<integer>18446744073709551615</integer>"), "outside the 64-bit signed range"),
        ("integer with spaces", plist("<integer> 5 </integer>"), "not a decimal integer"),
        ("integer with fraction", plist("<integer>1.5</integer>"), "not a decimal integer"),
        ("hex digit in decimal", plist("<integer>12a</integer>"), "not a decimal integer"),
        ("double sign", plist("<integer>--1</integer>"), "not a decimal integer"),
        ("sign only", plist("<integer>-</integer>"), "has no digits"),
        ("hex prefix only", plist("<integer>0x</integer>"), "has no digits"),
        ("empty integer", plist("<integer></integer>"), "<integer> is empty"),
        ("self-closed integer", plist("<integer/>"), "<integer> is empty"),
        ("real garbage", plist("<real>2.5x</real>"), "not a decimal number"),
        ("hexadecimal real", plist("<real>0x1p3</real>"), "not a decimal number"),
        ("real exponent without digits", plist("<real>1e</real>"), "not a decimal number"),
        ("real dot only", plist("<real>.</real>"), "not a decimal number"),
        ("real with spaces", plist("<real> 2.5 </real>"), "not a decimal number"),
        ("nan with payload", plist("<real>nan(1)</real>"), "not a decimal number"),
        ("text in true", plist("<true>x</true>"), "<true> is not empty"),
        ("duplicate key", plist("<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>"), "has the key \"a\" twice"),
        ("key without value", plist("<dict><key>a</key></dict>"), "key \"a\" has no value"),
        ("key followed by key", plist("<dict><key>a</key><key>b</key><true/></dict>"), "key \"a\" has no value"),
        ("value without key", plist("<dict><integer>1</integer></dict>"), "<integer> where <key> was expected"),
        ("text in dict", plist("<dict>junk<key>a</key><true/></dict>"), "text where <key> was expected"),
        ("text in array", plist("<array>junk</array>"), "text where a value element was expected"),
        ("key in array", plist("<array><key>a</key></array>"), "<key> outside a <dict>"),
        ("key as root", "<key>a</key>", "<key> outside a <dict>"),
        ("plist in array", plist("<array><plist><true/></plist></array>"), "<plist> inside a value"),
        ("two root values", plist("<string>a</string><string>b</string>"), "more than one value"),
        ("empty plist", plist(""), "<plist> is empty"),
        ("self-closed plist", "<plist version=\"1.0\"/>", "<plist> is empty"),
        ("trailing text", plist("<true/>") + "garbage", "content after the root element"),
        ("trailing element", plist("<true/>") + "<true/>", "content after the root element"),
        ("two bare roots", "<true/><false/>", "content after the root element"),
        ("only a declaration", "<?xml version=\"1.0\"?>", "no property list value"),
        ("only a comment", "<!-- x -->", "no property list value"),
        ("only whitespace", "   \n ", "neither a binary"),
        ("unclosed comment", "<!-- x " + plist("<true/>"), "comment is not closed"),
        ("unclosed processing instruction", plist("<array><?pi </array>"), "processing instruction is not closed"),
        ("DOCTYPE internal subset", "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ENTITY a \"aaa\">]>\n<plist><string>&a;</string></plist>", "internal subset"),
        ("DOCTYPE after the root began", "<plist><!DOCTYPE plist><true/></plist>", "<!DOCTYPE> after the root"),
        ("latin-1 declared", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><true/></plist>", "encoding \"iso-8859-1\" is not supported"),
        ("malformed tag", plist("< true/>"), "malformed tag"),
        ("slash inside a tag", plist("<true/ >"), "malformed tag <true>"),
        ("attribute without a value", plist("<string a>x</string>"), "attribute without a value"),
        ("unquoted attribute", plist("<string a=b>x</string>"), "not quoted"),
        ("close tag with an attribute", plist("<string>a</string x=\"1\">"), "malformed close tag"),
        ("OpenStep text", "{ entitlementSnapshot = { schemaVersion = 1; }; }", "neither a binary (bplist00) nor an XML property list"),
        ("JSON", "{\"a\": 1}", "neither a binary (bplist00) nor an XML property list"),
        ("UTF-16 with a byte-order mark", "\u{FFFE}", "neither a binary"),
    ]

    @Test(arguments: cases.map(\.0))
    func refusedWithAReason(name: String) throws {
        let (_, text, expected) = try #require(Self.cases.first { $0.0 == name })
        let reason = try #require(Self.reason(Array(text.utf8)), "accepted")
        #expect(reason.contains(expected), "\(reason)")
        #expect(!reason.contains("\n"), "\(reason)")
        if !expected.hasPrefix("neither") {
            #expect(reason.hasPrefix("line "), "\(reason)")
        }
    }

    /// The reason `bytes` is refused for, or `nil` if it is accepted.
    static func reason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try PropertyListCodec.decode(bytes)
            return nil
        } catch {
            guard case .malformed(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    @Test func invalidUTF8IsRefusedInStringsKeysAndEscapedText() {
        let prefix = Array(#"<plist version="1.0"><dict><key>"#.utf8)
        for (bytes, element) in [
            (prefix + [0x61, 0xFF] + Array("</key><true/></dict></plist>".utf8), "<key>"),
            (prefix + Array("a</key><string>".utf8) + [0xC3] + Array("</string></dict></plist>".utf8), "<string>"),
            (prefix + Array("a</key><string>&amp;".utf8) + [0xED, 0xA0, 0x80] + Array("</string></dict></plist>".utf8), "<string>"),
        ] {
            let reason = Self.reason(bytes)
            #expect(reason?.contains("invalid UTF-8 in \(element)") == true, "\(reason ?? "accepted")")
        }
    }

    @Test func UTF16IsRefusedByName() {
        #expect(Self.reason([0xFF, 0xFE, 0x3C, 0x00])?.contains("UTF-16") == true)
        #expect(Self.reason([0xFE, 0xFF, 0x00, 0x3C])?.contains("UTF-16") == true)
    }

    @Test func reasonsNameTheLineAndColumn() {
        let text = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>n</key>\n\t<integer>1x</integer>\n</dict>\n</plist>\n"
        #expect(Self.reason(Array(text.utf8)) == "line 5, column 2: <integer> \"1x\" is not a decimal integer")
        let description = PropertyListError.malformed(reason: Self.reason(Array(text.utf8)) ?? "").description
        #expect(description == "not a valid property list: line 5, column 2: <integer> \"1x\" is not a decimal integer")
    }

    static func nested(_ depth: Int, open: String = "<array>", close: String = "</array>", closed: Bool = true) -> [UInt8] {
        let inner = String(repeating: open, count: depth) + "<true/>" + (closed ? String(repeating: close, count: depth) : "")
        return Array(plist(inner).utf8)
    }

    @Test func deepNestingIsRefusedOnASmallStack() async {
        // Swift concurrency's threads have smaller stacks than the main thread.
        let outcomes = await Task.detached { () -> [String?] in
            [
                Self.reason(Self.nested(10_000)),
                Self.reason(Self.nested(10_000, closed: false)),
                Self.reason(Self.nested(10_000, open: "<dict><key>k</key>", close: "</dict>")),
                Self.reason(Self.nested(513)),
                Self.reason(Self.nested(512)),
                Self.reason(Self.nested(512, open: "<dict><key>k</key>", close: "</dict>")),
            ]
        }.value
        for outcome in outcomes.prefix(4) {
            #expect(outcome?.contains("containers nest deeper than 512 levels") == true, "\(outcome ?? "accepted")")
        }
        #expect(outcomes[4] == nil && outcomes[5] == nil, "512 levels refused: \(outcomes.suffix(2))")
    }

    @Test func tooManyValuesAreRefused() {
        let bytes = Array(Self.plist("<array>" + String(repeating: "<true/>", count: BinaryPropertyListFormat.maximumValueCount) + "</array>").utf8)
        #expect(Self.reason(bytes)?.contains("more than \(BinaryPropertyListFormat.maximumValueCount) values") == true)
    }

    /// Every prefix of a valid document that stops before the root's close tag is refused; the
    /// longer ones (only trailing whitespace missing) are accepted; none crashes.
    @Test(arguments: [UInt64(1), 2])
    func everyTruncationBeforeTheEndIsRefused(seed: UInt64) throws {
        var random = RandomPropertyListValues(seed: seed)
        for value in [SnapshotShapedValue.make(entitlements: 3).withWholeSecondDates, random.value().withWholeSecondDates] {
            let bytes = try PropertyListCodec.encode(value, format: .xml)
            let end = bytes.count - 1  // the final newline
            var wrong: [Int] = []
            for length in 0..<bytes.count {
                let accepted = (try? PropertyListCodec.decode(Array(bytes[..<length]))) != nil
                if accepted != (length >= end) { wrong.append(length) }
            }
            #expect(wrong.isEmpty, "truncations of \(bytes.count) bytes decided wrongly at lengths \(wrong.prefix(20))")
        }
    }

    /// Every byte replaced by a few hostile values: each decode ends with a value or an error.
    @Test func singleByteCorruptionsNeverCrash() throws {
        let bytes = try PropertyListCodec.encode(SnapshotShapedValue.make(entitlements: 2), format: .xml)
        var refused = 0
        for index in bytes.indices {
            for replacement: UInt8 in [0x00, 0x3C, 0x3E, 0x26, 0x2F, 0xFF] where bytes[index] != replacement {
                var corrupted = bytes
                corrupted[index] = replacement
                if (try? PropertyListCodec.decode(corrupted)) == nil { refused += 1 }
            }
        }
        #expect(refused > bytes.count)
    }
}
