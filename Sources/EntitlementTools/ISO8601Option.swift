import CLISupport
import StoreKitFormats
import FoundationEssentials

extension ValueParser where Value == Date {
    /// An ISO 8601 instant (`2026-11-22T10:00:00Z`), as `--now` and `--since` take it.
    package static var iso8601: Self {
        Self(expected: "an ISO 8601 date such as 2026-11-22T10:00:00Z") { ISO8601.date(from: $0) }
    }
}
