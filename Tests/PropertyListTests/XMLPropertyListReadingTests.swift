import Foundation
import Testing
@testable import PropertyList

/// What the XML reader accepts beyond the writers' own output, and how it reads it: each case
/// is also read by Foundation, which must agree (these are the behaviours we match).
@Suite struct XMLPropertyListReadingTests {
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>
        """
    }

    static let cases: [(String, String, PropertyListValue)] = [
        ("hex integer", plist("<integer>0x1F</integer>"), .integer(31)),
        ("upper-case hex prefix", plist("<integer>0X1f</integer>"), .integer(31)),
        ("negative hex", plist("<integer>-0x10</integer>"), .integer(-16)),
        ("Int64.min in hex", plist("<integer>-0x8000000000000000</integer>"), .integer(.min)),
        ("plus sign", plist("<integer>+5</integer>"), .integer(5)),
        ("minus zero", plist("<integer>-0</integer>"), .integer(0)),
        ("leading zeros are decimal", plist("<integer>010</integer>"), .integer(10)),
        ("Int64.max", plist("<integer>9223372036854775807</integer>"), .integer(.max)),
        ("Int64.min", plist("<integer>-9223372036854775808</integer>"), .integer(.min)),
        ("real without fraction", plist("<real>2</real>"), .real(2)),
        ("real .5", plist("<real>.5</real>"), .real(0.5)),
        ("real 1.", plist("<real>1.</real>"), .real(1)),
        ("real exponent", plist("<real>1E5</real>"), .real(100_000)),
        ("real plus sign", plist("<real>+5</real>"), .real(5)),
        ("real overflow is infinity", plist("<real>1e400</real>"), .real(.infinity)),
        ("real underflow is zero", plist("<real>1e-400</real>"), .real(0)),
        ("+infinity", plist("<real>+infinity</real>"), .real(.infinity)),
        ("-infinity", plist("<real>-infinity</real>"), .real(-.infinity)),
        ("inf", plist("<real>inf</real>"), .real(.infinity)),
        ("Infinity", plist("<real>Infinity</real>"), .real(.infinity)),
        ("-inf", plist("<real>-inf</real>"), .real(-.infinity)),
        ("date", plist("<date>2001-01-01T00:00:01Z</date>"), .date(Date(timeIntervalSinceReferenceDate: 1))),
        ("date year 1", plist("<date>0001-01-01T00:00:00Z</date>"), .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000))),
        ("date year 0 (1 BC)", plist("<date>0000-01-01T00:00:00Z</date>"), .date(Date(timeIntervalSinceReferenceDate: -63_145_526_400))),
        ("date year -1, three digits", plist("<date>-001-01-01T00:00:00Z</date>"), .date(Date(timeIntervalSinceReferenceDate: -63_177_062_400))),
        ("date five-digit year", plist("<date>11507-08-17T05:20:00Z</date>"), .date(Date(timeIntervalSinceReferenceDate: 3e11))),
        ("date leap day 2400", plist("<date>2400-02-29T12:34:56Z</date>"), .date(Date(timeIntervalSinceReferenceDate: 12_596_301_296))),
        ("data with whitespace", plist("<data>\n\tAAEC\n\t/w==\n</data>"), .data([0, 1, 2, 255])),
        ("data with one pad", plist("<data>AAE=</data>"), .data([0, 1])),
        ("empty data", plist("<data>\n</data>"), .data([])),
        ("entities", plist("<string>&amp;&lt;&gt;&quot;&apos;&#65;&#x42;&#x1F600;</string>"), .string("&<>\"'AB😀")),
        ("NUL by reference", plist("<string>a&#0;b</string>"), .string("a\0b")),
        ("raw control characters", plist("<string>a\u{1}b\rc</string>"), .string("a\u{1}b\rc")),
        ("raw >", plist("<string>a > b ]]> c</string>"), .string("a > b ]]> c")),
        ("CDATA", plist("<string><![CDATA[a<b>&c]]></string>"), .string("a<b>&c")),
        ("CDATA between text", plist("<string>x<![CDATA[<y>]]>&amp;z</string>"), .string("x<y>&z")),
        ("whitespace kept in strings and keys", plist("<dict><key> k </key><string>  a \n b  </string></dict>"), .dictionary([" k ": .string("  a \n b  ")])),
        ("empty forms", plist("<array><string/><array/><dict/><string></string><true></true></array>"),
         .array([.string(""), .array([]), .dictionary([:]), .string(""), .boolean(true)])),
        ("empty key", plist("<dict><key/><string>x</string></dict>"), .dictionary(["": .string("x")])),
        ("comments and processing instructions between values",
         plist("<dict><!-- a --><key>a</key><!-- b --><?pi x?><array><!----><false/></array></dict><!-- c -->"),
         .dictionary(["a": .array([.boolean(false)])])),
        ("spaces and attributes in tags", plist("<array ><true /><string a='1' b=\"2\">x</string ></array>"), .array([.boolean(true), .string("x")])),
        ("bare value without <plist>", "<dict><key>a</key><integer>1</integer></dict>", .dictionary(["a": .integer(1)])),
        ("bare value after a declaration", "<?xml version=\"1.0\"?>\n<string>x</string>", .string("x")),
        ("byte-order mark", "\u{FEFF}" + plist("<string>bom</string>"), .string("bom")),
        ("leading whitespace", "\n  " + plist("<true/>"), .boolean(true)),
        ("no version attribute", "<plist><string>a</string></plist>", .string("a")),
        ("CRLF line ends", plist("<dict>\r\n<key>a</key>\r\n<string>x\r\ny</string></dict>").replacingOccurrences(of: "\n", with: "\r\n"),
         .dictionary(["a": .string("x\r\r\ny")])),
        ("ASCII declared", "<?xml version=\"1.0\" encoding=\"us-ascii\"?><plist><true/></plist>", .boolean(true)),
    ]

    @Test(arguments: cases.map(\.0))
    func readsLikeFoundation(name: String) throws {
        let (_, text, expected) = try #require(Self.cases.first { $0.0 == name })
        let bytes = Array(text.utf8)
        let ours = try PropertyListCodec.decode(bytes)
        #expect(ours == expected)
        #expect(try FoundationPropertyList.decode(bytes) == expected, "Foundation disagrees")
    }

    @Test func readsNaNSpelledEitherWay() throws {
        for spelling in ["nan", "NaN"] {
            let value = try PropertyListCodec.decode(Array(Self.plist("<real>\(spelling)</real>").utf8))
            #expect(value.realValue?.isNaN == true, "\(spelling)")
        }
        let written = String(decoding: try PropertyListCodec.encode(.array([.real(.nan), .real(.infinity), .real(-.infinity)]), format: .xml), as: UTF8.self)
        #expect(written.contains("<real>nan</real>") && written.contains("<real>+infinity</real>") && written.contains("<real>-infinity</real>"))
    }

    @Test func datesAreWrittenRoundedDownToTheSecond() throws {
        for (interval, expected) in [(0.7, 0.0), (-0.3, -1.0), (59.9999, 59.0), (-86_400.5, -86_401.0)] {
            let bytes = try PropertyListCodec.encode(.date(Date(timeIntervalSinceReferenceDate: interval)), format: .xml)
            #expect(try PropertyListCodec.decode(bytes) == .date(Date(timeIntervalSinceReferenceDate: expected)), "\(interval)")
        }
    }

    @Test func stringsAreEscapedAndControlCharactersReferenced() throws {
        let bytes = try PropertyListCodec.encode(.dictionary(["<&>": .string("a\0b\rc\td\ne]]>")]), format: .xml)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<key>&lt;&amp;&gt;</key>"))
        #expect(text.contains("<string>a&#0;b&#13;c\td\ne]]&gt;</string>"))
        #expect(!bytes.contains(0) && !bytes.contains(0x0D))
    }

    @Test func keysAreWrittenSorted() throws {
        let text = String(decoding: try PropertyListCodec.encode(.dictionary(["b": .integer(1), "a": .integer(2), "ab": .integer(3), "B": .integer(4)]), format: .xml), as: UTF8.self)
        let keys = text.split(separator: "\n").filter { $0.contains("<key>") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(keys == ["<key>B</key>", "<key>a</key>", "<key>ab</key>", "<key>b</key>"])
    }

    @Test func writingRefusesWhatCannotBeReadBack() {
        #expect(throws: PropertyListError.self) { try PropertyListCodec.encode(.date(Date(timeIntervalSinceReferenceDate: .infinity)), format: .xml) }
        #expect(throws: PropertyListError.self) { try PropertyListCodec.encode(.date(Date(timeIntervalSinceReferenceDate: 1e300)), format: .xml) }
        var deep = PropertyListValue.array([])
        for _ in 0..<513 { deep = .array([deep]) }
        #expect(throws: PropertyListError.self) { try PropertyListCodec.encode(deep, format: .xml) }
    }
}
