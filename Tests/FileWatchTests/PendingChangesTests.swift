@testable import FileWatch
import Testing

@Suite struct PendingChangesTests {
    enum Step: Sendable, CustomStringConvertible {
        case armed, removed, rearmed, overflow, changed(String)
        var description: String {
            switch self {
            case .armed: "armed"
            case .removed: "removed"
            case .rearmed: "rearmed"
            case .overflow: "overflow"
            case .changed(let name): "changed(\(name))"
            }
        }
    }

    static let cases: [(id: String, steps: [Step], expected: [FileWatchEvent])] = [
        ("nothing", [], []),
        ("names merge", [.changed("a"), .changed("b"), .changed("a")], [.changed(["a", "b"])]),
        ("overflow subsumes names", [.changed("a"), .overflow, .changed("b")], [.overflow]),
        ("armed subsumes names", [.armed, .changed("a")], [.armed]),
        ("armed then removed", [.armed, .removed], [.armed, .directoryRemoved]),
        ("armed, removed, back", [.armed, .removed, .rearmed], [.armed]),
        ("removed then back", [.changed("a"), .removed, .rearmed, .changed("b")], [.directoryRemoved, .rearmed]),
        ("back then removed again", [.removed, .rearmed, .removed], [.directoryRemoved]),
        ("back after a removal already delivered", [.rearmed], [.rearmed]),
        ("removed twice", [.removed, .removed], [.directoryRemoved]),
    ]

    @Test(arguments: cases)
    func collapsesInTheDocumentedOrder(_ testCase: (id: String, steps: [Step], expected: [FileWatchEvent])) {
        var pending = PendingChanges()
        for step in testCase.steps { apply(step, to: &pending) }
        #expect(pending.events == testCase.expected, "\(testCase.id): \(testCase.steps)")
        #expect(pending.isEmpty == testCase.expected.isEmpty)
    }

    @Test(arguments: cases)
    func mergingInTwoHalvesEqualsApplyingInOrder(_ testCase: (id: String, steps: [Step], expected: [FileWatchEvent])) {
        for split in 0...testCase.steps.count {
            var earlier = PendingChanges()
            var later = PendingChanges()
            for step in testCase.steps[..<split] { apply(step, to: &earlier) }
            for step in testCase.steps[split...] { apply(step, to: &later) }
            earlier.merge(later)
            #expect(earlier.events == testCase.expected, "\(testCase.id) split at \(split)")
        }
    }

    @Test func tooManyDistinctNamesBecomeOverflow() {
        var pending = PendingChanges()
        for index in 0...PendingChanges.maximumNames { pending.noteChanged("name\(index)") }
        #expect(pending.events == [.overflow])
        #expect(pending.names.isEmpty, "memory is released")
    }

    @Test("A name noted with its set alone is that set; another name after it is added to a copy")
    func nameWithItsSetAlone() {
        let alone: Set<String> = ["a"]
        var pending = PendingChanges()
        pending.noteChanged("a", alone: alone)
        #expect(pending.events == [.changed(["a"])])
        pending.noteChanged("b", alone: ["b"])
        pending.noteChanged("a", alone: alone)
        #expect(pending.events == [.changed(["a", "b"])])
        #expect(alone == ["a"], "the shared set is never changed in place")
        pending.noteOverflow()
        pending.noteChanged("a", alone: alone)
        #expect(pending.events == [.overflow])
    }

    @Test("forEachEvent yields the events in order and stops when told to")
    func forEachEventStops() {
        var pending = PendingChanges()
        pending.noteArmed()
        pending.noteRemoved()
        var seen: [FileWatchEvent] = []
        pending.forEachEvent { event in
            seen.append(event)
            return true
        }
        #expect(seen == [.armed, .directoryRemoved])
        seen = []
        pending.forEachEvent { event in
            seen.append(event)
            return false
        }
        #expect(seen == [.armed])
    }

    private func apply(_ step: Step, to pending: inout PendingChanges) {
        switch step {
        case .armed: pending.noteArmed()
        case .removed: pending.noteRemoved()
        case .rearmed: pending.noteRearmed()
        case .overflow: pending.noteOverflow()
        case .changed(let name): pending.noteChanged(name)
        }
    }
}
