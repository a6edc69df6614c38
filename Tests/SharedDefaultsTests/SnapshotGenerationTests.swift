import EntitlementDefaults
import Entitlements
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

    /// `snapshot` of `generation` in the history `history`.
    static func snapshot(_ generation: Int64, history: String?) -> EntitlementSnapshot {
        var snapshot = Fixture.snapshot(generation: generation)
        snapshot.historyID = history
        return snapshot
    }

    @Test("Another history is taken whatever its generation; a replayed file of the history held and one without a history id are refused")
    func histories() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            // Files from before histories were named count as one history of their own.
            let legacy = Self.snapshot(7, history: nil)
            try writer.publish(legacy)
            #expect(reader.refresh() == .updated(legacy))
            try writer.publish(Self.snapshot(6, history: nil))
            #expect(reader.refresh() == .rejected(
                reason: "\(reader.path): snapshot generation 6 is older than the last good 7 (replayed file?)", lastGood: legacy))

            // The daemon names its history: taken, though it counts from 1 (a recreated container).
            let first = Self.snapshot(1, history: "a1")
            try writer.publish(first)
            #expect(reader.refresh() == .updated(first))
            let second = Self.snapshot(2, history: "a1")
            try writer.publish(second)
            #expect(reader.refresh() == .updated(second))
            // A replayed file of the history held is refused, and so is an old file with no history id.
            try writer.publish(first)
            #expect(reader.refresh() == .rejected(
                reason: "\(reader.path): snapshot generation 1 is older than the last good 2 (replayed file?)", lastGood: second))
            try writer.publish(Self.snapshot(9, history: nil))
            #expect(reader.refresh() == .rejected(
                reason: "\(reader.path): snapshot generation 9 has no history id, after history a1 generation 2"
                    + " (written before histories were named: replayed file?)",
                lastGood: second))

            // A new history (the container recreated again) is taken at generation 1.
            let fresh = Self.snapshot(1, history: "b2")
            try writer.publish(fresh)
            #expect(reader.refresh() == .updated(fresh))
            #expect(reader.lastGood == fresh)
        }
    }

    @Test("A history id that is not 1 to 64 printable ASCII characters refuses the snapshot", arguments: ["", "a b", String(repeating: "x", count: 65), "é"])
    func badHistoryID(id: String) throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            try writer.publish(Self.snapshot(3, history: id))
            guard case .rejected(let reason, nil) = reader.refresh() else {
                Issue.record("a history id '\(id)' was not refused")
                return
            }
            #expect(reason.contains("historyId"), "\(reason)")
        }
    }
}
