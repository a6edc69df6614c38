import Dispatch
import EntitlementDefaults
import Entitlements
import Foundation
import Synchronization

/// Reader threads decoding the shared file in a tight loop until stopped, counting what they see:
/// the readers of the crash-torture harness. A torn or undecodable file is a refused read.
final class StressReaders: Sendable {
    struct Summary: Sendable {
        var reads = 0, decoded = 0, refused = 0, missing = 0, failed = 0, backwards = 0
        var lastGeneration: Int64 = 0
        var firstRefusal: String?
    }

    private let stopped = Atomic<Bool>(false)
    private let readCount = Atomic<Int>(0)
    private let summaries = Mutex<[Summary]>([])
    private let finished = DispatchGroup()

    /// Starts `count` readers of the shared file of `layout`.
    init(layout: ContainerLayout, count: Int) {
        for _ in 0..<count {
            finished.enter()
            Thread.detachNewThread { [self] in
                // Readers spin on every core they get: the daemon and the rest of the suite go
                // first (on Linux the nice value of PRIO_PROCESS 0 is the calling thread's).
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                let summary = readUntilStopped(layout)
                summaries.withLock { $0.append(summary) }
                finished.leave()
            }
        }
    }

    /// Reads of every reader so far.
    var reads: Int { readCount.load(ordering: .relaxed) }

    /// Stops the readers and returns what each saw.
    func stop() async -> [Summary] {
        stopped.store(true, ordering: .relaxed)
        await withCheckedContinuation { continuation in finished.notify(queue: .global()) { continuation.resume() } }
        return summaries.withLock { $0 }
    }

    private func readUntilStopped(_ layout: ContainerLayout) -> Summary {
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        var summary = Summary()
        while !stopped.load(ordering: .relaxed) {
            summary.reads += 1
            readCount.add(1, ordering: .relaxed)
            switch reader.refresh() {
            case .updated(let snapshot):
                summary.decoded += 1
                if snapshot.generation < summary.lastGeneration { summary.backwards += 1 }
                summary.lastGeneration = snapshot.generation
            case .unchanged: break
            case .missing: summary.missing += 1
            // A system call failed (out of descriptors, say): that says nothing about the file.
            case .failed: summary.failed += 1
            case .rejected(let reason, _):
                summary.refused += 1
                if summary.firstRefusal == nil { summary.firstRefusal = reason }
            }
        }
        return summary
    }
}
