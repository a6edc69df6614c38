@testable import Broker
import Foundation
import ServiceRuntime
import Testing

@Suite("Retry backoff and refusal records", .timeLimit(.minutes(1)))
struct RetryAndRefusalTests {
    @Test("The backoff doubles from 0.5 s, never waits more than 5 s, and a success resets it")
    func backoff() {
        var backoff = RetryBackoff()
        let delays = (0..<8).map { _ in backoff.failed() }
        #expect(delays == [0.5, 1, 2, 4, 5, 5, 5, 5])
        #expect(backoff.succeeded() == 8)
        #expect(backoff.succeeded() == 0)
        #expect(backoff.failed() == 0.5)
        // Many failures in a row do not overflow or grow the wait.
        for _ in 0..<10_000 { _ = backoff.failed() }
        #expect(backoff.failed() == 5)
    }

    @Test("A refused inbox file leaves a one-line reason beside it in rejected/; an applied one leaves none")
    func refusalRecord() throws {
        let root = NSTemporaryDirectory() + "refusal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let inbox = Inbox(directory: root + "/inbox")
        let rejected = root + "/rejected"
        let refused = try inbox.enqueue(["{}"])
        let applied = try inbox.enqueue(["{}"])
        try inbox.quarantine(refused, into: rejected, reason: "x.events:1: environment 'Production'\nis not the catalog's\u{0}", durable: false)
        try inbox.remove(applied)
        #expect(!inbox.contains(refused))
        #expect(FileManager.default.fileExists(atPath: rejected + "/" + refused))
        #expect(RefusalRecord.reason(for: refused, in: rejected) == "x.events:1: environment 'Production' is not the catalog's")
        #expect(RefusalRecord.reason(for: applied, in: rejected) == nil)

        // A file moved there without its record (removed by hand) is still a refusal.
        try FileManager.default.removeItem(atPath: rejected + "/" + RefusalRecord.fileName(for: refused))
        #expect(RefusalRecord.reason(for: refused, in: rejected)?.contains("missing or unreadable") == true)
    }

    @Test("A reason is cut to the record's size at a character boundary")
    func longReason() {
        let line = RefusalRecord.oneLine(String(repeating: "é", count: RefusalRecord.maximumLength))
        #expect(line.utf8.count <= RefusalRecord.maximumLength)
        #expect(line.utf8.count >= RefusalRecord.maximumLength - 1)
        #expect(line.allSatisfy { $0 == "é" })
    }
}
