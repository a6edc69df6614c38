import Foundation
import Glibc
import ServiceRuntime
import Synchronization
import TestSupport
import Testing

/// What a test handler saw, readable from the test while the loop's thread writes it.
final class Record: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A handler that records every event and answers with the step `respond` gives.
struct RecordingHandler: ServiceLoopHandler {
    let record: Record
    let respond: @Sendable (ServiceLoopEvent<String>) -> ServiceLoopStep

    mutating func handle(_ event: ServiceLoopEvent<String>) -> ServiceLoopStep {
        switch event {
        case .start: record.append("start")
        case .source(let name): record.append(name)
        case .deadline: record.append("deadline")
        case .signal(let signal): record.append("signal \(signal.rawValue)")
        case .stop(let signal): record.append("stop \(signal.rawValue)")
        }
        return respond(event)
    }
}

/// A source run by a task, as a test writes one: `body` runs from the loop's start and is
/// cancelled, and waited for, when the loop ends. The same source may be given twice: each
/// start runs a task, each stop ends one.
func taskSource(_ body: @escaping @Sendable (ServiceLoopSink<String>) async -> Void) -> ServiceLoopSource<String> {
    let running = Mutex<[(task: Task<Void, Never>, ended: DispatchSemaphore)]>([])
    return ServiceLoopSource(
        start: { sink in
            let ended = DispatchSemaphore(value: 0)
            let task = Task {
                await body(sink)
                ended.signal()
            }
            running.withLock { $0.append((task, ended)) }
        },
        stop: {
            guard let (task, ended) = running.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            task.cancel()
            ended.wait()
        })
}

/// The service loop shared by the daemon, the follower and `ingest --wait`: its sources, its
/// thread and its shutdown. Serialized: the signal tests signal this whole process.
@Suite("Service loop", .serialized, .timeLimit(.minutes(2)))
struct ServiceLoopTests {
    static let loop = ServiceLoop(name: "test", stopSignals: [UnixSignal(rawValue: SIGUSR2)], signals: [UnixSignal(rawValue: SIGUSR1)])

    /// Runs `loop` on a thread of its own, as a tool runs it on its main thread.
    static func run(
        _ loop: ServiceLoop = loop, sources: [ServiceLoopSource<String>], _ makeHandler: @escaping @Sendable () -> RecordingHandler
    ) async {
        _ = await onOwnThread { loop.run(sources: sources, makeHandler) }
    }

    @Test("The deadline fires once, at the instant asked for, and an event before it replaces it")
    func deadlineFires() async throws {
        let record = Record()
        // At start the handler asks for a deadline an hour away (far beyond the suite's time
        // limit, so a deadline not replaced fails the test); the source's event replaces it
        // with one 0.2 s on.
        let source = ServiceLoopSource<String>(start: { sink in sink.post("ping") }, stop: {})
        let asked = Mutex<Date?>(nil)
        await Self.run(sources: [source]) {
            RecordingHandler(record: record) { event in
                switch event {
                case .start: return .wait(until: Date().addingTimeInterval(3600))
                case .source:
                    let due = Date().addingTimeInterval(0.2)
                    asked.withLock { $0 = due }
                    return .wait(until: due)
                default: return .stop
                }
            }
        }
        let arrived = Date()
        #expect(record.all == ["start", "ping", "deadline"])
        let due = try #require(asked.withLock { $0 })
        #expect(arrived >= due, "the deadline came \(due.timeIntervalSince(arrived)) s early")
    }

    @Test("A deadline already past is delivered at once, and no deadline means none is delivered")
    func pastAndAbsentDeadline() async throws {
        let record = Record()
        let source = taskSource { sink in
            // Sent only once the handler has waited a while with no deadline.
            try? await Task.sleep(for: .milliseconds(300))
            sink.post("later")
        }
        await Self.run(sources: [source]) {
            RecordingHandler(record: record) { event in
                switch event {
                case .start: return .wait(until: Date().addingTimeInterval(-5))
                case .deadline: return .wait(until: nil)
                default: return .stop
                }
            }
        }
        #expect(record.all == ["start", "deadline", "later"])
    }

    @Test("Each signal is delivered once; a stop signal is the handler's last event and ends run")
    func signalsDeliveredOnce() async throws {
        let record = Record()
        async let finished: Void = Self.run(sources: []) {
            RecordingHandler(record: record) { _ in .wait(until: nil) }
        }
        #expect(try await eventually { record.all == ["start"] })
        kill(getpid(), SIGUSR1)
        #expect(try await eventually { record.all.count == 2 })
        kill(getpid(), SIGUSR1)
        #expect(try await eventually { record.all.count == 3 })
        kill(getpid(), SIGUSR2)
        await finished
        #expect(record.all == ["start", "signal \(SIGUSR1)", "signal \(SIGUSR1)", "stop \(SIGUSR2)"])
    }

    @Test("A stop signal sent while the handler starts up is not lost: it is handled right after the start")
    func stopDuringStartUp() async throws {
        let record = Record()
        await Self.run(sources: []) {
            kill(getpid(), SIGUSR2)
            return RecordingHandler(record: record) { _ in .wait(until: nil) }
        }
        #expect(record.all == ["start", "stop \(SIGUSR2)"])
    }

    @Test("Signals get back their previous disposition when the loop ends")
    func dispositionRestored() async throws {
        await Self.run(sources: []) { RecordingHandler(record: Record()) { _ in .stop } }
        var action = sigaction()
        sigaction(SIGUSR1, nil, &action)
        #expect(action.__sigaction_handler.sa_handler == nil, "SIGUSR1 still has the loop's handler (SIG_DFL is nil)")
    }

    @Test("No source outlives run; the handler runs on the thread that called run, which is all the loop needs besides its watchdog")
    func nothingLeaks() async throws {
        let record = Record()
        let ended = Mutex(0)
        let source = taskSource { sink in
            sink.post("ready")
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(10)) }
            ended.withLock { $0 += 1 }
        }
        let threads = Mutex<(caller: String?, handler: String?)>((nil, nil))
        // "/proc/thread-self" links to "PID/task/TID".
        let current: @Sendable () -> String? = { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).map { "/proc/" + $0 } }
        _ = await onOwnThread {
            threads.withLock { $0.caller = current() }
            return Self.loop.run(sources: [source, source]) {
                threads.withLock { $0.handler = current() }
                return RecordingHandler(record: record) { event in
                    if case .source = event { return .stop }
                    return .wait(until: nil)
                }
            }
        }
        #expect(ended.withLock { $0 } == 2, "a source task was still running when run returned")
        let (caller, handler) = threads.withLock { $0 }
        #expect(caller != nil && caller == handler, "run called on \(caller ?? "?"), the handler made on \(handler ?? "?")")
    }

    struct StartFailure: Error, Equatable {}

    @Test("A handler that cannot start: run throws its error and stops every source")
    func startFailure() async throws {
        let ended = Mutex(false)
        let source = taskSource { _ in
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(10)) }
            ended.withLock { $0 = true }
        }
        let makeFailing: @Sendable () throws(StartFailure) -> RecordingHandler = { () throws(StartFailure) in throw StartFailure() }
        let outcome = await onOwnThread { Result { () throws(StartFailure) in try Self.loop.run(sources: [source], makeFailing) } }
        #expect(throws: StartFailure()) { _ = try outcome.get() }
        #expect(ended.withLock { $0 })
    }

    @Test("A stop the handler cannot finish within the shutdown deadline ends the process with one line and status 75")
    func shutdownDeadlineExceeded() async throws {
        let result = await #expect(processExitsWith: .exitCode(75), observing: [\.standardErrorContent]) {
            let loop = ServiceLoop(name: "service", stopSignals: [.terminate], shutdownDeadline: .milliseconds(200))
            _ = loop.run(sources: []) {
                RecordingHandler(record: Record()) { _ in
                    // The event in hand never finishes.
                    kill(getpid(), SIGTERM)
                    while true { Thread.sleep(forTimeInterval: 1) }
                }
            }
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let lines = standardError.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(standardError)")
        #expect(lines.first == "service: SIGTERM: the work in hand did not finish within 0.2 s; exiting with status 75", "stderr: \(standardError)")
    }
}
