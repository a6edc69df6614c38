import Foundation
import Testing
@testable import StoreKitFormats

@Suite struct ISO8601DurationTests {
    @Test(arguments: [
        ("P1M", ISO8601Duration(months: 1)), ("P1Y", ISO8601Duration(years: 1)), ("P7D", ISO8601Duration(days: 7)),
        ("P1W", ISO8601Duration(weeks: 1)), ("P3M", ISO8601Duration(months: 3)), ("P1DT12H", ISO8601Duration(days: 1, hours: 12)),
        ("PT30M", ISO8601Duration(minutes: 30)), ("P1Y2M3DT4H5M6S", ISO8601Duration(years: 1, months: 2, days: 3, hours: 4, minutes: 5, seconds: 6)),
    ])
    func parses(_ text: String, _ expected: ISO8601Duration) {
        #expect(ISO8601Duration(text) == expected)
        #expect(ISO8601Duration(text)?.description == text)
    }

    @Test(arguments: ["", "P", "PT", "1M", "P1", "P-1M", "P1.5M", "PM", "P1M1Y", "P1H", "PT1D", "P1MT", "p1m", "P1000000D"])
    func refuses(_ text: String) {
        #expect(ISO8601Duration(text) == nil)
    }

    @Test(arguments: [
        ("2024-01-31T10:00:00Z", "P1M", "2024-02-29T10:00:00Z"),
        ("2025-01-31T10:00:00Z", "P1M", "2025-02-28T10:00:00Z"),
        ("2024-02-29T00:00:00Z", "P1Y", "2025-02-28T00:00:00Z"),
        ("2025-12-15T23:30:00Z", "P1M", "2026-01-15T23:30:00Z"),
        ("2025-03-01T00:00:00Z", "P1W", "2025-03-08T00:00:00Z"),
        ("2025-03-01T00:00:00Z", "P7D", "2025-03-08T00:00:00Z"),
        ("2025-03-01T18:00:00Z", "PT12H", "2025-03-02T06:00:00Z"),
        ("2023-10-19T01:45:36.049Z", "P1M", "2023-11-19T01:45:36.049Z"),
    ])
    func addsOnTheUTCCalendar(_ start: String, _ duration: String, _ end: String) throws {
        let parsed = try #require(ISO8601Duration(duration))
        let result = parsed.added(to: Fixtures.date(start))
        #expect(abs(result.timeIntervalSince(Fixtures.date(end))) < 0.000_001, "\(ISO8601.string(from: result))")
    }
}
