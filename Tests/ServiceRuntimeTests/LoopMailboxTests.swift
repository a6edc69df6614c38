import Foundation
import Synchronization
import SystemShims
import Testing

@testable import ServiceRuntime

/// The order in which the loop's thread takes what sources, signals and the deadline bring.
@Suite("Service loop mailbox", .timeLimit(.minutes(1)))
struct LoopMailboxTests {
    static func describe(_ event: ServiceLoopEvent<String>) -> String {
        switch event {
        case .start: "start"
        case .source(let name): name
        case .deadline: "deadline"
        case .signal(let signal): "signal \(signal)"
        case .stop(let signal): "stop \(signal)"
        }
    }

    /// The next event, waiting as the loop's thread does: in `poll` on the mailbox's counter.
    static func take(_ mailbox: LoopMailbox<String>, deadline: Date?) -> ServiceLoopEvent<String> {
        mailbox.take(deadline: deadline) { timeout in
            (try? FileDescriptor.waitForInput(mailbox.wakeDescriptor, nil, timeoutMilliseconds: timeout))?.first ?? false
        }
    }

    /// Everything queued, in the order taken, ending at the (past) deadline.
    static func drain(_ mailbox: LoopMailbox<String>) -> [String] {
        var taken: [String] = []
        while true {
            let event = Self.take(mailbox, deadline: .distantPast)
            if case .deadline = event { return taken }
            taken.append(describe(event))
        }
    }

    @Test("First in, first out; a stop goes ahead of everything queued, and only the first stop counts")
    func stopFirst() throws {
        let mailbox = try LoopMailbox<String>()
        mailbox.post(.source("a"))
        mailbox.post(.signal(.hangup))
        #expect(mailbox.requestStop(.terminate))
        #expect(!mailbox.requestStop(.interrupt))
        mailbox.post(.source("b"))
        #expect(Self.drain(mailbox) == ["stop SIGTERM", "a", "signal SIGHUP", "b"])
    }

    @Test("A coalescing post is dropped while the previous one of its source is queued, and queued again once that is taken")
    func coalescing() throws {
        let mailbox = try LoopMailbox<String>()
        mailbox.post(.source("inbox 1"), coalescingKey: 0)
        mailbox.post(.source("inbox 2"), coalescingKey: 0)
        mailbox.post(.source("broker 1"), coalescingKey: 1)
        mailbox.post(.source("plain 1"))
        mailbox.post(.source("plain 2"))
        #expect(Self.describe(Self.take(mailbox, deadline: nil)) == "inbox 1")
        mailbox.post(.source("inbox 3"), coalescingKey: 0)
        #expect(Self.drain(mailbox) == ["broker 1", "plain 1", "plain 2", "inbox 3"])
    }

    @Test("take blocks until a post from another thread, or until its deadline")
    func blocksUntilPostOrDeadline() async throws {
        let mailbox = try LoopMailbox<String>()
        let taken = Mutex<[String]>([])
        let finished = Mutex(false)
        Thread.detachNewThread {
            let first = Self.take(mailbox, deadline: nil)
            taken.withLock { $0.append(Self.describe(first)) }
            let due = Date().addingTimeInterval(0.2)
            let second = Self.take(mailbox, deadline: due)
            taken.withLock { $0.append(Self.describe(second) + (Date() >= due ? "" : " early")) }
            finished.withLock { $0 = true }
        }
        mailbox.post(.source("posted"))
        let clock = ContinuousClock()
        let start = clock.now
        while !finished.withLock({ $0 }) && clock.now - start < .seconds(20) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(taken.withLock { $0 } == ["posted", "deadline"])
    }
}
