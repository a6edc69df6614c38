import Dispatch
import Entitlements
import EntitlementDefaults
import SharedDefaults
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct TornReadTests {
    @Test func aReaderRacingAWriterNeverSeesATornOrOlderSnapshot() throws {
        try withTemporaryDirectory { container in
            let publishes: Int64 = 2_000
            let options = SharedDefaults.Options(durable: false)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container, options: options)
            try writer.set("foreign", forKey: "appSetting")
            try writer.publish(Fixture.snapshot(generation: 1))
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container, options: options)

            let writerDone = Atomic<Bool>(false)
            let problems = Mutex<[String]>([])
            let updates = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for generation in 2...(publishes + 1) {
                        do { try writer.publish(Fixture.snapshot(generation: generation)) } catch {
                            problems.withLock { $0.append("publish \(generation): \(error)") }
                        }
                    }
                    writerDone.store(true, ordering: .releasing)
                    return
                }
                var newest: Int64 = 0
                func observe(_ outcome: SnapshotReadOutcome) {
                    switch outcome {
                    case .updated(let snapshot):
                        if snapshot.generation <= newest {
                            problems.withLock { $0.append("generation went from \(newest) to \(snapshot.generation)") }
                        }
                        newest = snapshot.generation
                        updates.add(1, ordering: .relaxed)
                    case .rejected(let reason, _), .failed(let reason, _, _):
                        problems.withLock { $0.append("rejected: \(reason)") }
                    case .missing:
                        problems.withLock { $0.append("file missing during replace") }
                    case .unchanged:
                        break
                    }
                }
                while !writerDone.load(ordering: .acquiring) { observe(reader.refresh()) }
                observe(reader.refresh())
            }
            let seen = problems.withLock { $0 }
            #expect(seen.isEmpty, "first problems: \(seen.prefix(5))")
            #expect(reader.lastGood?.generation == publishes + 1)
            #expect(updates.load(ordering: .relaxed) >= 1)
            #expect(SharedDefaults(suiteName: Fixture.suite, container: container).string(forKey: "appSetting") == "foreign")
        }
    }
}
