import Glibc
import Synchronization

/// One long-lived POSIX thread that runs the closures handed to it, one at a time, in the order
/// they were handed over: for work started so often that creating a thread for each
/// (``DetachedThread``) would cost more than the work's own set-up (the journal's `fsync` beside
/// every publish).
///
/// The thread is created by the first ``run(_:)``. It holds no reference to the worker: once the
/// worker is released, the thread runs what is still queued and ends.
package final class WorkerThread: Sendable {
    private let queue = JobQueue()
    private let started = Mutex(false)

    package init() {}

    deinit { queue.close() }

    /// Queues `body` to run on the worker's thread, after everything queued before it.
    ///
    /// - Throws: ``Errno`` when the thread has to be created and cannot be (`EAGAIN`: a thread or
    ///   memory limit); `body` is then not queued, and a later call tries again.
    package func run(_ body: @escaping @Sendable () -> Void) throws(Errno) {
        #if ENABLE_MOCKING
        // The work fails the same system calls as the task that handed it over.
        let faults = SyscallFaults.current
        let body: @Sendable () -> Void = { SyscallFaults.$current.withValue(faults) { body() } }
        #endif
        try started.withLock { started throws(Errno) in
            if !started {
                let queue = queue
                try DetachedThread.start { queue.serve() }
                started = true
            }
            queue.append(body)
        }
    }
}

/// The jobs of a ``WorkerThread`` and the semaphore its thread sleeps on; shared by the worker
/// and its thread.
private final class JobQueue: @unchecked Sendable {
    // `jobs` and `closed` are guarded by `state`; `semaphore` is thread-safe by itself.
    private let state = Mutex<(jobs: [@Sendable () -> Void], closed: Bool)>(([], false))
    private let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func append(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        sem_post(semaphore)
    }

    /// No more jobs will come: the thread ends once the queue is empty.
    func close() {
        state.withLock { $0.closed = true }
        sem_post(semaphore)
    }

    /// The thread's body: runs jobs as they come until the queue is closed and empty.
    func serve() {
        while true {
            while sem_wait(semaphore) != 0 {}  // EINTR
            let next: (job: (@Sendable () -> Void)?, done: Bool) = state.withLock { state in
                if !state.jobs.isEmpty { return (state.jobs.removeFirst(), false) }
                return (nil, state.closed)
            }
            if let job = next.job { job() }
            if next.done { return }
        }
    }
}
