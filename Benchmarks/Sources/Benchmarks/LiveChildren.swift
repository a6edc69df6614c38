// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import Synchronization

/// The children the benchmark started and has not reaped yet, so that a benchmark ended by a
/// signal (a test's timeout, `kill`, a closed terminal) ends them too instead of leaving a daemon
/// and its readers running with nobody to stop them.
///
/// A handler for `SIGTERM`, `SIGINT` and `SIGHUP` sends `SIGTERM` to every recorded child, then
/// ends this process by the same signal. It may run at any instant on any thread, so it touches
/// only atomics and calls only `kill`, `signal`, `pthread_sigmask` and `raise`. A child being started is not recorded
/// yet: a spawn announces itself first, and whichever of the handler and the last spawn in
/// flight sees the other's mark last does the stopping (each stores its mark, then loads the
/// other's, both sequentially consistent), so no child is started and missed.
enum LiveChildren {
    private static let capacity = 1_024
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Atomic<Int32>> = {
        let slots = UnsafeMutablePointer<Atomic<Int32>>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Atomic(0)) }
        return slots
    }()
    private static let spawnsInFlight = Atomic<Int>(0)
    /// The termination signal received, or 0.
    private static let requestedSignal = Atomic<Int32>(0)

    /// Runs `spawn` (which returns the new child's ID, or nil when it failed) and records the
    /// child. A termination requested meanwhile is carried out once the child is recorded.
    static func spawning(_ spawn: () -> pid_t?) -> pid_t? {
        spawnsInFlight.wrappingAdd(1, ordering: .sequentiallyConsistent)
        var pid: pid_t?
        if requestedSignal.load(ordering: .sequentiallyConsistent) == 0 {
            pid = spawn()
            if let pid { insert(pid) }
        }
        let stillInFlight = spawnsInFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue
        let requested = requestedSignal.load(ordering: .sequentiallyConsistent)
        if requested != 0, stillInFlight == 0 { stopChildrenAndEnd(by: requested) }
        return pid
    }

    /// Forgets a child once it is reaped (its number may then be given to another process).
    static func remove(_ pid: pid_t) {
        for index in 0..<capacity where slots[index].compareExchange(expected: pid, desired: 0, ordering: .relaxed).exchanged {
            return
        }
    }

    /// Installs the handler; call it before starting any child.
    static func stopOnTerminationSignals() {
        // Initialised here, never inside the handler.
        _ = slots
        _ = spawnsInFlight.load(ordering: .relaxed)
        _ = requestedSignal.load(ordering: .relaxed)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber) { received in
                LiveChildren.requestedSignal.store(received, ordering: .sequentiallyConsistent)
                // A spawn in flight records its child and then stops everything itself.
                if LiveChildren.spawnsInFlight.load(ordering: .sequentiallyConsistent) == 0 {
                    LiveChildren.stopChildrenAndEnd(by: received)
                }
            }
        }
    }

    private static func insert(_ pid: pid_t) {
        // A full table is not an error: that child is then not stopped for us (the benchmark
        // runs at most a few hundred at once).
        for index in 0..<capacity where slots[index].compareExchange(expected: 0, desired: pid, ordering: .sequentiallyConsistent).exchanged {
            return
        }
    }

    private static func stopChildrenAndEnd(by received: Int32) {
        for index in 0..<capacity {
            let pid = slots[index].load(ordering: .sequentiallyConsistent)
            if pid > 0 { kill(pid, SIGTERM) }
        }
        signal(received, SIG_DFL)
        // This thread may block the signal (the concurrency pool's threads do, and a handler
        // blocks its own signal while it runs): unblock it here so `raise` ends the process now.
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, received)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(received)
    }
}
