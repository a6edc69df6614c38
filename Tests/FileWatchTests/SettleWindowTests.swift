@testable import FileWatch
import Testing

/// The settle window is kept in whole nanoseconds, never shorter than asked.
@Suite struct SettleWindowTests {
    static let cases: [(Duration, UInt64)] = [
        (Duration.zero, UInt64(0)),
        (Duration.milliseconds(-5), 0),
        (Duration.nanoseconds(1), 1),
        (Duration.milliseconds(20), 20_000_000),
        (Duration.seconds(3) + .nanoseconds(7), 3_000_000_007),
        (Duration(secondsComponent: 0, attosecondsComponent: 1), 1),
        (Duration(secondsComponent: 1, attosecondsComponent: 1_000_000_001), 1_000_000_002),
        (Duration.seconds(Int64.max), UInt64.max),
    ]

    @Test(arguments: cases)
    func nanosecondsRoundUp(_ duration: Duration, _ expected: UInt64) {
        #expect(WatchReader<InlineWatchConsumer>.nanoseconds(duration) == expected)
    }
}
