import Broker
import EntitlementModel
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import Synchronization

/// A reader decoding the shared file in a tight loop, counting what it sees.
struct StressReader {
    let layout: ContainerLayout

    struct Summary {
        var reads = 0, decoded = 0, refused = 0, missing = 0, backwards = 0
        var lastGeneration: Int64 = 0
        var firstRefusal: String?

        var json: JSONValue {
            .object([
                "reads": .int(Int64(reads)), "decoded": .int(Int64(decoded)), "refused": .int(Int64(refused)),
                "missing": .int(Int64(missing)), "backwards": .int(Int64(backwards)), "lastGeneration": .int(lastGeneration),
                "firstRefusal": firstRefusal.map(JSONValue.string) ?? .null,
            ])
        }
    }

    private final class StopFlag: Sendable {
        let stopped = Atomic<Bool>(false)
    }

    /// Reads until generation `target` is seen (or 60 s pass); with `target` nil, until SIGTERM/SIGINT.
    func run(upTo target: Int64?) async -> Summary {
        let flag = StopFlag()
        let signals = await SignalSequence.make([.terminate, .interrupt])
        let listener = Task {
            for await _ in signals {
                flag.stopped.store(true, ordering: .relaxed)
                return
            }
        }
        defer { listener.cancel() }
        if target == nil {
            // Open-ended readers (the torture harness) spin on every core they get: let the daemon
            // and everything else on the machine go first.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        }
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        var summary = Summary()
        let deadline = Date().addingTimeInterval(target == nil ? .infinity : 60)
        let parent = getppid()
        while !flag.stopped.load(ordering: .relaxed) {
            // An open-ended reader whose harness died must not spin forever as an orphan.
            if target == nil, summary.reads % 1024 == 0, getppid() != parent { break }
            if let target, summary.lastGeneration >= target || Date() > deadline { break }
            summary.reads += 1
            switch reader.refresh() {
            case .updated(let snapshot):
                summary.decoded += 1
                if snapshot.generation < summary.lastGeneration { summary.backwards += 1 }
                summary.lastGeneration = snapshot.generation
            case .unchanged: break
            case .missing: summary.missing += 1
            case .rejected(let reason, _), .failed(let reason, _, _):
                summary.refused += 1
                if summary.firstRefusal == nil { summary.firstRefusal = reason }
            }
            if target == nil, summary.reads % 64 == 0 { await Task.yield() }
        }
        return summary
    }
}
