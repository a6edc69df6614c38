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

/// The service loop shared by the daemon and the follower: its sources, its thread and its shutdown.
/// Serialized: the signal tests signal this whole process.
@Suite("Service loop", .serialized, .timeLimit(.minutes(2)))
struct ServiceLoopTests {
    static let loop = ServiceLoop(stopSignals: [UnixSignal(rawValue: SIGUSR2)], signals: [UnixSignal(rawValue: SIGUSR1)], log: { _ in })

    @Test("The deadline fires once, at the instant asked for, and an event before it replaces it")
    func deadlineFires() async throws {
        let record = Record()
        let clock = ContinuousClock()
        let started = clock.now
        // At start the handler asks for a deadline far away; the source's event replaces it with one 0.2 s on.
        let source = ServiceLoopSource<String> { sink in sink.post("ping") }
        let asked = Mutex<Date?>(nil)
        _ = await Self.loop.run(sources: [source]) {
            RecordingHandler(record: record) { event in
                switch event {
                case .start: return .wait(until: Date().addingTimeInterval(60))
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
        #expect(clock.now - started < .seconds(30), "the first deadline (60 s) was not replaced")
    }

    @Test("A deadline already past is delivered at once, and no deadline means none is delivered")
    func pastAndAbsentDeadline() async throws {
        let record = Record()
        let source = ServiceLoopSource<String> { sink in
            // Sent only once the handler has waited a while with no deadline.
            try? await Task.sleep(for: .milliseconds(300))
            sink.post("later")
        }
        _ = await Self.loop.run(sources: [source]) {
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
        async let finished = Self.loop.run(sources: []) {
            RecordingHandler(record: record) { _ in .wait(until: nil) }
        }
        #expect(try await eventually { record.all == ["start"] })
        kill(getpid(), SIGUSR1)
        #expect(try await eventually { record.all.count == 2 })
        kill(getpid(), SIGUSR1)
        #expect(try await eventually { record.all.count == 3 })
        kill(getpid(), SIGUSR2)
        _ = await finished
        #expect(record.all == ["start", "signal \(SIGUSR1)", "signal \(SIGUSR1)", "stop \(SIGUSR2)"])
    }

    @Test("A stop signal sent while the handler starts up is not lost: it is handled right after the start")
    func stopDuringStartUp() async throws {
        let record = Record()
        _ = await Self.loop.run(sources: []) {
            kill(getpid(), SIGUSR2)
            return RecordingHandler(record: record) { _ in .wait(until: nil) }
        }
        #expect(record.all == ["start", "stop \(SIGUSR2)"])
    }

    @Test("No source task and no thread outlives run; the handler runs on the loop's own thread")
    func nothingLeaks() async throws {
        let record = Record()
        let ended = Mutex(0)
        let source = ServiceLoopSource<String> { sink in
            sink.post("ready")
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(10)) }
            ended.withLock { $0 += 1 }
        }
        let thread = Mutex<String?>(nil)
        _ = await Self.loop.run(sources: [source, source]) {
            // "/proc/thread-self" links to "PID/task/TID".
            thread.withLock { $0 = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).map { "/proc/" + $0 } }
            return RecordingHandler(record: record) { event in
                if case .source = event { return .stop }
                return .wait(until: nil)
            }
        }
        #expect(ended.withLock { $0 } == 2, "a source task was still running when run returned")
        let threadPath = try #require(thread.withLock { $0 })
        #expect(threadPath.hasPrefix("/proc/\(getpid())/task/"))
        #expect(try await eventually { !FileManager.default.fileExists(atPath: threadPath) }, "the loop's thread \(threadPath) did not end")
    }

    struct StartFailure: Error, Equatable {}

    @Test("A handler that cannot start: run throws its error and stops every source")
    func startFailure() async throws {
        let ended = Mutex(false)
        let source = ServiceLoopSource<String> { _ in
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(10)) }
            ended.withLock { $0 = true }
        }
        let makeFailing: @Sendable () throws(StartFailure) -> RecordingHandler = { () throws(StartFailure) in throw StartFailure() }
        await #expect(throws: StartFailure()) { _ = try await Self.loop.run(sources: [source], makeFailing) }
        #expect(ended.withLock { $0 })
    }

    @Test("A stop the handler cannot finish within the shutdown deadline ends the process with one line and status 75")
    func shutdownDeadlineExceeded() async throws {
        let result = await #expect(processExitsWith: .exitCode(75), observing: [\.standardErrorContent]) {
            let loop = ServiceLoop(
                stopSignals: [.terminate], shutdownDeadline: .milliseconds(200),
                log: { line in FileHandle.standardError.write(Data("service: \(line)\n".utf8)) })
            _ = await loop.run(sources: []) {
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
