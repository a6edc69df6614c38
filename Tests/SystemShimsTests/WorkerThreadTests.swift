import Dispatch
import Glibc
import Synchronization
import SystemShims
import Testing

@Suite("A worker thread kept for many jobs", .timeLimit(.minutes(1)))
struct WorkerThreadTests {
    @Test("Jobs run in the order handed over, all on one thread that is not the caller's, and the thread ends once the worker is released")
    func jobsRunInOrderOnOneThread() throws {
        let record = Mutex<(order: [Int], threads: Set<pid_t>)>(([], []))
        let done = DispatchSemaphore(value: 0)
        let count = 50
        var worker: WorkerThread? = WorkerThread()
        for index in 0..<count {
            try worker!.run {
                record.withLock {
                    $0.order.append(index)
                    $0.threads.insert(Self.threadID())
                }
                if index == count - 1 { done.signal() }
            }
        }
        done.wait()
        let (order, threads) = record.withLock { ($0.order, $0.threads) }
        #expect(order == Array(0..<count))
        #expect(threads.count == 1)
        let thread = try #require(threads.first)
        #expect(thread != Self.threadID())

        // Released: the thread runs the last job handed over before the release, then ends
        // (a detached thread cannot be joined: its /proc/self/task entry goes when it exits).
        let last = DispatchSemaphore(value: 0)
        try worker!.run { last.signal() }
        worker = nil
        last.wait()
        let deadline = DispatchTime.now() + .seconds(10)
        var gone = false
        while !gone, DispatchTime.now() < deadline {
            gone = access("/proc/self/task/\(thread)", F_OK) != 0
            if !gone { sched_yield() }
        }
        #expect(gone, "the worker's thread ends after its last job once the worker is released")
    }

    /// The calling thread's kernel id: the last component of `/proc/thread-self` (`<pid>/task/<tid>`).
    private static func threadID() -> pid_t {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        precondition(count > 0, "no /proc/thread-self")
        let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return pid_t(link.split(separator: "/").last!)!
    }
}
