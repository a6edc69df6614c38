// The benchmark's process floor for the shipped tools: a process that loads the same runtime as
// `entitlementd` and `widget-renderer` (Swift runtime, concurrency, Dispatch, Synchronization,
// FoundationEssentials) and does nothing else. `idle` waits for a signal; anything else exits 0.
import FoundationEssentials
import Dispatch
// Glibc directly on purpose: the floor is the runtime alone, without the package's SystemShims.
import Glibc
import Synchronization

let keepLinked = Mutex(Date())
if CommandLine.arguments.dropFirst().first == "idle" {
    let queue = DispatchQueue(label: "floor")
    queue.async { keepLinked.withLock { $0 = Date() } }
    while true { pause() }
}
