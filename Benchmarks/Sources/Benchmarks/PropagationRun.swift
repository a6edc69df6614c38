import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// One propagation measurement: `readers` helper processes of one role all watching the same
/// file, and a writer in this process. Each round writes one new generation, records the
/// monotonic write-start time, and waits until every reader has reported that generation (or the
/// round times out). Rounds are sequential, so nothing queues behind a previous write.
struct PropagationRun {
    /// Arguments after `--role` for reader `index`.
    var readerArguments: (Int) -> [String]
    var readers: Int
    var warmup: Int
    var rounds: Int
    /// How long one round waits for all readers before counting the missing ones as misses.
    var roundTimeout: Double
    /// Environment for the readers (`nil`: inherit).
    var environment: [String: String]? = nil

    /// What the run saw.
    struct Outcome {
        /// Per round, the latency (µs) of the slowest reader; rounds where some reader missed are left out.
        var lastReader: [Double] = []
        /// Every reader's latency (µs) in every round.
        var everyReader: [Double] = []
        /// Reader reports that never came within the round timeout.
        var misses = 0
        var rounds = 0
        /// Times each reader was woken per write, over warm-up and measured rounds: the readers'
        /// voluntary context switches (a thread blocked in `poll` or `read` counts one each time
        /// it blocks again after a wake-up) divided by readers × writes. 1.0 means every write
        /// woke every reader exactly once.
        var wakeUpsPerWrite: Double?
        /// CPU time (µs) each reader spent per write, over warm-up and measured rounds: the
        /// readers' on-CPU time (`/proc/PID/task/*/schedstat`, user and kernel, every thread)
        /// divided by readers × writes.
        var readerCPUPerWrite: Double?
        /// CPU time (µs) of this thread inside `write` per write (`CLOCK_THREAD_CPUTIME_ID`).
        var writerCPUPerWrite: Double?
    }

    /// Spawns the readers, waits until each says it is watching, runs the rounds with `write`
    /// (which writes generation N, counting from `firstGeneration`, and returns its monotonic start
    /// time), then stops the readers. A round takes only reports of exactly its generation: a
    /// reader that starts on an existing file reports that file's generation before any round,
    /// and taking such a stale report for the first round would shift every later round by one.
    func run(firstGeneration: Int64 = 1, write: (Int64) throws(BenchmarkError) -> UInt64) throws(BenchmarkError) -> Outcome {
        let channel = try ReportPipe()
        var children: [SpawnedProcess] = []
        defer { for child in children { child.stop() } }
        for index in 0..<readers {
            children.append(
                try SpawnedProcess(
                    executable: SelfExecutable.path, arguments: ["--role"] + readerArguments(index),
                    standardOutput: channel.writeEnd, environment: environment))
        }
        var armed = Set<Int>()
        let armDeadline = MonotonicClock.now() + UInt64(30 + readers) * 1_000_000_000
        while armed.count < readers {
            guard let report = channel.nextReport(deadline: armDeadline) else {
                throw BenchmarkError("only \(armed.count) of \(readers) readers (\(readerArguments(0).first ?? "?")) started within the deadline")
            }
            if report.generation == 0 { armed.insert(report.reader) }
        }
        var outcome = Outcome()
        let switchesBefore = children.map { Self.voluntarySwitches(pid: $0.pid) }
        let cpuBefore = children.map { Self.onCPUNanoseconds(pid: $0.pid) }
        var writerCPU: UInt64 = 0
        var generation = firstGeneration - 1
        for round in 0..<(warmup + rounds) {
            generation += 1
            let writerBefore = Self.threadCPUNanoseconds()
            let start = try write(generation)
            writerCPU &+= Self.threadCPUNanoseconds() &- writerBefore
            var latencies: [Int: Double] = [:]
            let deadline = MonotonicClock.now() + UInt64(roundTimeout * 1e9)
            while latencies.count < readers, let report = channel.nextReport(deadline: deadline) {
                guard report.generation == generation, latencies[report.reader] == nil else { continue }
                guard report.nanoseconds >= start else {
                    throw BenchmarkError("reader \(report.reader) reported generation \(generation) before it was written: the rounds are out of step")
                }
                latencies[report.reader] = Double(report.nanoseconds - start) / 1000
            }
            guard round >= warmup else { continue }
            outcome.rounds += 1
            outcome.everyReader.append(contentsOf: latencies.values)
            outcome.misses += readers - latencies.count
            if latencies.count == readers, let slowest = latencies.values.max() { outcome.lastReader.append(slowest) }
        }
        let switches = zip(children, switchesBefore).compactMap { child, before in
            Self.voluntarySwitches(pid: child.pid).flatMap { after in before.flatMap { after >= $0 ? after - $0 : nil } }
        }
        if switches.count == readers, warmup + rounds > 0 {
            outcome.wakeUpsPerWrite = Double(switches.reduce(0, +)) / Double(readers * (warmup + rounds))
        }
        // A thread that ended between the two samples takes its counts with it; a reader whose
        // total went down is left out, and then the figure is not reported.
        let cpu = zip(children, cpuBefore).compactMap { child, before in
            Self.onCPUNanoseconds(pid: child.pid).flatMap { after in before.flatMap { after >= $0 ? after - $0 : nil } }
        }
        if cpu.count == readers, warmup + rounds > 0 {
            outcome.readerCPUPerWrite = Double(cpu.reduce(0, +)) / 1000 / Double(readers * (warmup + rounds))
            outcome.writerCPUPerWrite = Double(writerCPU) / 1000 / Double(warmup + rounds)
        }
        return outcome
    }

    /// The on-CPU time in nanoseconds of every thread of `pid` so far (the first field of
    /// `/proc/PID/task/*/schedstat`), or `nil` when it cannot be read.
    static func onCPUNanoseconds(pid: pid_t) -> UInt64? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var total: UInt64 = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let value = UInt64(first)
            else { return nil }
            total += value
        }
        return total
    }

    /// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
    static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The voluntary context switches of every thread of `pid` so far (`/proc/PID/task/*/status`),
    /// or `nil` when they cannot be read.
    static func voluntarySwitches(pid: pid_t) -> Int? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                let count = line.split(separator: "\t").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            total += count
        }
        return total
    }
}
