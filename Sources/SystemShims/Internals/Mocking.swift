#if ENABLE_MOCKING
import Synchronization

/// Failures to force into this module's system calls, for tests. It exists only in builds that
/// define `ENABLE_MOCKING` (debug builds of this package); release builds call the C library
/// directly.
///
/// Faults apply to the calls made by the task that installed them with ``withFaults(_:_:)``,
/// wherever it runs, and to nothing else: tests running in parallel do not see each other's
/// faults. A ``DetachedThread`` the task starts (a watcher's reader) inherits them.
///
/// ```swift
/// let faults = SyscallFaults()
/// faults.inject(.fail(.interrupted), into: .write)            // the next write fails with EINTR
/// faults.inject(.shortTransfer(maximumBytes: 3), into: .write, times: nil)   // every write stops after 3 bytes
/// try faults.withFaults { try journal.append(lines) }
/// ```
package final class SyscallFaults: Sendable {
    /// The system calls a fault can be forced into; the raw value is the C function's name.
    package enum Call: String, Sendable, Hashable, CaseIterable {
        case open = "openat"
        case read, write, fsync, ftruncate, lseek, fchmod, fstat, fstatat, renameat, unlinkat, mkdirat, flock, poll, waitpid
        case pipe = "pipe2"
        case inotifyInit = "inotify_init1"
        case inotifyAddWatch = "inotify_add_watch"
        case socket, bind, listen, connect, send, recv, setsockopt, getsockname, getrandom
        case accept = "accept4"
    }

    /// What a faulted call does instead of its work.
    package enum Fault: Sendable, Hashable {
        /// Fails with `errno` set to this value, doing nothing.
        case fail(Errno)
        /// Transfers at most `maximumBytes` (a short `read` or `write`); other calls run normally.
        case shortTransfer(maximumBytes: Int)
    }

    private struct Rule {
        var call: Call
        var fault: Fault
        var skip: Int
        var remaining: Int?
    }

    private struct State {
        var rules: [Rule] = []
        var trace: [Call] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Forces `fault` into `call`: after letting `skip` calls through, into the next `times`
    /// calls (`nil`: every call from then on). Rules apply in the order they were added; the first
    /// that matches a call decides it.
    package func inject(_ fault: Fault, into call: Call, after skip: Int = 0, times: Int? = 1) {
        state.withLock { $0.rules.append(Rule(call: call, fault: fault, skip: skip, remaining: times)) }
    }

    /// Every call made under these faults so far, faulted or not, in order.
    package var trace: [Call] { state.withLock { $0.trace } }

    /// How many of the calls made so far were `call`.
    package func count(of call: Call) -> Int { trace.filter { $0 == call }.count }

    /// Runs `body` with these faults installed for the current task.
    package func withFaults<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let result = Self.$current.withValue(self) { Result { () throws(E) -> R in try body() } }
        return try result.get()
    }

    /// The asynchronous form of ``withFaults(_:_:)``.
    package func withFaults<R>(_ body: () async throws -> R) async rethrows -> R {
        try await Self.$current.withValue(self) { try await body() }
    }

    @TaskLocal static var current: SyscallFaults?

    /// Records `call` and returns the fault to apply to it, if any.
    func fault(for call: Call) -> Fault? {
        state.withLock { state in
            state.trace.append(call)
            for index in state.rules.indices where state.rules[index].call == call {
                if state.rules[index].skip > 0 {
                    state.rules[index].skip -= 1
                    return nil
                }
                if let remaining = state.rules[index].remaining {
                    guard remaining > 0 else { continue }
                    state.rules[index].remaining = remaining - 1
                }
                return state.rules[index].fault
            }
            return nil
        }
    }
}
#endif
