import EntitlementDefaults
import EntitlementModel
import Foundation
import SharedDefaults
import TestSupport
import Testing

/// Which snapshot a ``SnapshotReader`` takes as its new last good one, by generation and contents.
@Suite(.timeLimit(.minutes(1))) struct SnapshotGenerationTests {
    @Test("A higher generation is taken; the same one again is unchanged; the same generation with other contents and a lower one are refused")
    func generationsAndContents() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            let five = Fixture.snapshot(generation: 5)
            try writer.publish(five)
            #expect(reader.refresh() == .updated(five))

            try writer.publish(five)  // a new file with the same snapshot
            #expect(reader.refresh() == .unchanged(five))

            var altered = five
            altered.nextTransition = Date(timeIntervalSince1970: 1_900_000_000)
            try writer.publish(altered)
            #expect(
                reader.refresh()
                    == .rejected(reason: "\(reader.path): snapshot generation 5 was already read with different contents", lastGood: five))

            let six = Fixture.snapshot(generation: 6)
            try writer.publish(six)
            #expect(reader.refresh() == .updated(six))

            try writer.publish(five)
            #expect(
                reader.refresh()
                    == .rejected(reason: "\(reader.path): snapshot generation 5 is older than the last good 6 (replayed file?)", lastGood: six))
            #expect(reader.lastGood == six)
        }
    }
}
