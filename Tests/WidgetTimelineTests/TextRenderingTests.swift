import Entitlements
import Foundation
import Testing
import WidgetTimeline

@Suite struct TextRenderingTests {
    /// Every state the text renderer distinguishes, as (label, entry).
    static let states: [(String, EntitlementEntry)] = [
        ("unlocked", EntitlementEntry(
            date: Fixtures.now, state: .unlocked(.sample), snapshotGeneration: 7, asOf: Fixtures.issuedAt)),
        ("locked", EntitlementEntry(
            date: Fixtures.expiry, state: .locked(Fixtures.widgetsPaywall), snapshotGeneration: 7, asOf: Fixtures.issuedAt)),
        ("placeholder", EntitlementTimelineProvider(gate: Fixtures.gate)
            .placeholder(in: TimelineProviderContext(family: .systemSmall))),
        ("stale unlocked", EntitlementEntry(
            date: Fixtures.now, state: .unlocked(.sample), snapshotGeneration: 7, asOf: Fixtures.issuedAt, isStale: true)),
        ("stale locked", EntitlementEntry(
            date: Fixtures.expiry, state: .locked(Fixtures.widgetsPaywall), snapshotGeneration: 7,
            asOf: Fixtures.issuedAt, isStale: true)),
    ]

    static let cases: [(WidgetFamily, TextCharset)] = WidgetFamily.allCases.flatMap { family in
        TextCharset.allCases.map { (family, $0) }
    }

    @Test(arguments: cases)
    func everyStateMatchesGolden(family: WidgetFamily, charset: TextCharset) throws {
        let renderer = TimelineTextRenderer(charset: charset)
        let text = Self.states.map { label, entry in
            "== \(label)\n" + renderer.render(entry: entry, family: family)
        }.joined(separator: "\n")
        try Golden.check(text, named: "\(family.rawValue).\(charset.rawValue).txt")
    }

    @Test(arguments: cases)
    func boxesAreInProportionAndTextStaysInside(family: WidgetFamily, charset: TextCharset) {
        let renderer = TimelineTextRenderer(charset: charset)
        let (columns, rows) = TimelineTextRenderer.cells(for: family)
        let long = PaywallCopy(
            title: "An extraordinarily long paywall title that cannot possibly fit",
            message: String(repeating: "A message that goes on and on. ", count: 20),
            callToAction: "A call to action far too long for any widget family at all")
        let longEntry = EntitlementEntry(
            date: Fixtures.now, state: .locked(Paywall(feature: "widgets", reason: .notEntitled, copy: long)),
            asOf: Fixtures.issuedAt, isStale: true)
        for (label, entry) in Self.states + [("long", longEntry)] {
            let lines = renderer.render(entry: entry, family: family).split(separator: "\n", omittingEmptySubsequences: false)
            if family == .accessoryInline {
                #expect(lines.count == 1, "\(label)")
                #expect(lines.allSatisfy { TextMetrics.width(String($0)) <= columns }, "\(label): \(lines)")
            } else {
                #expect(lines.count == rows, "\(label): \(lines.count) rows, expected \(rows)")
                // Side edges are the last cell of each line; round frames leave top/bottom corners inset.
                let widths = lines.dropFirst().dropLast().map { TextMetrics.width(String($0)) }
                #expect(widths.allSatisfy { $0 == columns }, "\(label): widths \(widths), expected \(columns)")
            }
            if charset == .ascii {
                #expect(lines.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F } }, "\(label)")
            }
        }
    }

    @Test func cellsFollowHIGProportions() {
        #expect(TimelineTextRenderer.cells(for: .systemSmall) == (17, 9))
        #expect(TimelineTextRenderer.cells(for: .systemMedium) == (36, 9))
        #expect(TimelineTextRenderer.cells(for: .systemLarge) == (36, 19))
        #expect(TimelineTextRenderer.cells(for: .systemExtraLarge) == (72, 17))
        #expect(TimelineTextRenderer.cells(for: .accessoryInline) == (26, 1))
        #expect(TimelineTextRenderer.cells(for: .accessoryCorner) == (8, 4))
    }

    @Test func staleShowsAsOfAndFreshDoesNot() throws {
        let renderer = TimelineTextRenderer()
        let fresh = try #require(Self.states.first { $0.0 == "unlocked" }?.1)
        let stale = try #require(Self.states.first { $0.0 == "stale unlocked" }?.1)
        #expect(renderer.render(entry: stale, family: .systemMedium).contains("as of 12:00:00 +00:00"))
        #expect(!renderer.render(entry: fresh, family: .systemMedium).contains("as of"))
    }

    @Test("'As of' names its zone: local time and its UTC offset, wherever the box has room for it", arguments: [
        (WidgetFamily.systemMedium, "as of 13:00:00 +01:00"), (.systemSmall, "~13:00 +01:00"),
        (.accessoryRectangular, "~13:00 +01:00"), (.accessoryInline, "Habits 2/3 ~13:00 +01:00"),
    ])
    func asOfNamesItsZone(family: WidgetFamily, expected: String) throws {
        let renderer = TimelineTextRenderer(charset: .ascii, timeZone: .fixed(secondsEastOfUTC: 3600))
        let stale = try #require(Self.states.first { $0.0 == "stale unlocked" }?.1)
        #expect(renderer.render(entry: stale, family: family).contains(expected), "\(renderer.render(entry: stale, family: family))")
    }

    @Test("Timelines write local time with the offset: header, reload date and every entry")
    func timelineInLocalTime() {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
            .timeline(for: Fixtures.subscribed, in: TimelineProviderContext(family: .accessoryInline), now: Fixtures.now)
        let text = TimelineTextRenderer(timeZone: .fixed(secondsEastOfUTC: -(3 * 3600 + 1800)))
            .render(timeline: timeline, family: .accessoryInline, now: Fixtures.now)
        #expect(text.contains("now 2026-03-01 08:33:00 -03:30"), "\(text)")
        #expect(text.contains("reload: after 2026-03-05 06:00:00 -03:30"), "\(text)")
        #expect(text.contains("2026-03-05 06:00:00 -03:30  locked (expired)"), "\(text)")
        #expect(!text.contains("Z"), "\(text)")
    }

    @Test("A locked title wraps at word boundaries into the rows the box has instead of being cut")
    func lockedTitleUsesTheRows() {
        let copy = PaywallCopy(title: "Widgets need Geko Plus", message: "Add Geko to your Home Screen.", callToAction: "Unlock widgets")
        let entry = EntitlementEntry(date: Fixtures.now, state: .locked(Paywall(feature: "widgets", reason: .notEntitled, copy: copy)))
        let small = TimelineTextRenderer().render(entry: entry, family: .systemSmall)
        #expect(small.contains("│ need Geko     │") && small.contains("│ Plus          │"), "\(small)")
        #expect(!small.contains("…"), "\(small)")
        let rectangular = TimelineTextRenderer().render(entry: entry, family: .accessoryRectangular)
        #expect(rectangular.contains("│🔒 Widgets…    │"), "\(rectangular)")
    }

    @Test("An entry locked because the snapshot is past its validity says so")
    func pastValidityIsExplained() {
        let entry = EntitlementEntry(
            date: Fixtures.expiry, state: .locked(Paywall(feature: "watchApp", reason: .noSnapshot, copy: Fixtures.watchCopy)),
            snapshotGeneration: 7, asOf: Fixtures.issuedAt, isPastValidity: true)
        #expect(TimelineTextRenderer().describe(entry)
            == "locked (noSnapshot): the snapshot from 2026-03-01 12:00:00 +00:00 is too old to trust by then; a newer one replaces this entry")
    }

    @Test func lockedLargeShowsMessageAndDeepLinkSmallDoesNot() throws {
        let renderer = TimelineTextRenderer()
        let locked = try #require(Self.states.first { $0.0 == "locked" }?.1)
        let large = renderer.render(entry: locked, family: .systemLarge)
        #expect(large.contains("app://paywall?feature=widgets"))
        #expect(large.contains("&reason=expired"))
        #expect(large.contains("Start free trial"))
        #expect(large.contains("See your habits"))
        let small = renderer.render(entry: locked, family: .systemSmall)
        #expect(small.contains("🔒"))
        #expect(!small.contains("app://"))
    }

    @Test("In ASCII a timeline keeps the box's lines apart and invents no '?'")
    func asciiTimelineKeepsLineBreaks() {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
            .timeline(for: Fixtures.subscribed, in: TimelineProviderContext(family: .systemMedium), now: Fixtures.now)
        let ascii = TimelineTextRenderer(charset: .ascii).render(timeline: timeline, family: .systemMedium, now: Fixtures.now)
        let unicode = TimelineTextRenderer(charset: .unicode).render(timeline: timeline, family: .systemMedium, now: Fixtures.now)
        let lines = ascii.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == unicode.split(separator: "\n", omittingEmptySubsequences: false).count, "\(ascii)")
        #expect(!ascii.contains("?"), "\(ascii)")
        #expect(lines.contains { $0 == "+" + String(repeating: "-", count: 34) + "+" }, "\(ascii)")
    }

    @Test("Line breaks and tabs in catalog copy become spaces and never break a box", arguments: TextCharset.allCases)
    func controlCharactersInCopyStayInside(charset: TextCharset) {
        let copy = PaywallCopy(title: "Widgets\nneed\rPlus", message: "See\tyour\u{2028}habits", callToAction: "Start\nnow")
        let entry = EntitlementEntry(date: Fixtures.now, state: .locked(Paywall(feature: "widgets", reason: .expired, copy: copy)))
        let renderer = TimelineTextRenderer(charset: charset)
        for family in WidgetFamily.allCases {
            let text = renderer.render(entry: entry, family: family)
            let expectedRows = family == .accessoryInline ? 1 : TimelineTextRenderer.cells(for: family).rows
            #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == expectedRows, "\(family): \(text)")
            #expect(!text.contains("\t") && !text.contains("\r") && !text.contains("\u{2028}"), "\(family): \(text)")
        }
    }

    @Test(arguments: TextCharset.allCases)
    func timelineMatchesGolden(charset: TextCharset) throws {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
            .timeline(for: Fixtures.subscribed, in: TimelineProviderContext(family: .systemMedium), now: Fixtures.now)
        let renderer = TimelineTextRenderer(charset: charset, timeZone: .fixed(secondsEastOfUTC: 3600))
        let before = renderer.render(timeline: timeline, family: .systemMedium, now: Fixtures.now)
        let after = renderer.render(timeline: timeline, family: .systemMedium, now: Fixtures.expiry)
        try Golden.check(before + "\n\n" + after, named: "timeline.systemMedium.\(charset.rawValue).txt")
    }
}

@Suite struct TextMetricsTests {
    @Test func truncateKeepsWidthAndMarksCut() {
        #expect(TextMetrics.truncate("Habits", to: 6, ellipsis: "…") == "Habits")
        #expect(TextMetrics.truncate("Habits Plus", to: 6, ellipsis: "…") == "Habit…")
        #expect(TextMetrics.truncate("Habits Plus", to: 6, ellipsis: "...") == "Hab...")
        #expect(TextMetrics.truncate("🔒 Plus", to: 3, ellipsis: "…") == "🔒…")
        #expect(TextMetrics.truncate("abc", to: 0, ellipsis: "…") == "")
    }

    @Test("Cuts fall after a whole word when that keeps at least half the room")
    func truncateCutsAtWordBoundaries() {
        #expect(TextMetrics.truncate("Widgets need Geko Plus", to: 15, ellipsis: "…") == "Widgets need…")
        #expect(TextMetrics.truncate("Check off habits from your wrist", to: 16, ellipsis: "…") == "Check off…")
        #expect(TextMetrics.truncate("A extraordinarily", to: 10, ellipsis: "...") == "A extra...")
        #expect(TextMetrics.truncate("Widgets need", to: 8, ellipsis: "…") == "Widgets…")
        #expect(TextMetrics.withEllipsis("the Home Screen and Lock Screen", limit: 32, ellipsis: "...") == "the Home Screen and Lock...")
    }

    @Test func wrapSplitsOnWordsAndMarksLeftovers() {
        #expect(TextMetrics.wrap("3 habits · 2 done today", to: 13, ellipsis: "…") == ["3 habits · 2", "done today"])
        #expect(TextMetrics.wrap("one two three four", to: 9, maxLines: 1, ellipsis: "…") == ["one two…"])
        #expect(TextMetrics.wrap("abcdefghij", to: 4, ellipsis: "…") == ["abcd", "efgh", "ij"])
    }

    @Test func asciiTransliterates() {
        #expect(TextMetrics.ascii("a · b … “c” — ✓") == "a - b ... \"c\" - ?")
    }

    @Test func widthCountsWideAndZeroWidth() {
        #expect(TextMetrics.width("🔒") == 2)
        #expect(TextMetrics.width("日本") == 4)
        #expect(TextMetrics.width("e\u{301}") == 1)
        #expect(TextMetrics.width("─│") == 2)
    }
}
