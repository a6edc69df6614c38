import EntitlementDefaults
import Entitlements
import Foundation
import Synchronization

/// Set by SIGTERM or SIGINT: an open-ended reader stops and prints its summary.
private let stopRequested = Atomic<Bool>(false)

/// A reader decoding the shared file in a tight loop, counting what it sees.
struct StressReader {
    let layout: ContainerLayout

    struct Summary {
        var reads = 0, decoded = 0, refused = 0, missing = 0, backwards = 0
        var lastGeneration: Int64 = 0
        var firstRefusal: String?

        /// One JSON object on one line.
        var json: String {
            let refusal = firstRefusal.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" } ?? "null"
            return "{\"backwards\":\(backwards),\"decoded\":\(decoded),\"firstRefusal\":\(refusal),\"lastGeneration\":\(lastGeneration),"
                + "\"missing\":\(missing),\"reads\":\(reads),\"refused\":\(refused)}"
        }
    }

    /// Reads until generation `target` is seen (or 60 s pass); with `target` nil, until SIGTERM/SIGINT.
    func run(upTo target: Int64?) -> Summary {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber) { _ in stopRequested.store(true, ordering: .relaxed) }
        }
        if target == nil {
            // An open-ended reader spins on every core it gets: let everything else go first.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        }
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        var summary = Summary()
        let deadline = Date().addingTimeInterval(target == nil ? .infinity : 60)
        while !stopRequested.load(ordering: .relaxed) {
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
        }
        return summary
    }
}
