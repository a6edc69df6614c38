#if ENABLE_MOCKING
@testable import Broker
import EntitlementModel
import Foundation
import Glibc
import SystemShims
import Testing

/// `ingest --wait` queues its file without fsyncs (the daemon journals before it publishes), so
/// every outcome the daemon has not journaled must make the file durable before it is reported,
/// and whatever a power cut leaves of such a file must be safe for the daemon to read.
@Suite("Deferred durability of ingest --wait", .timeLimit(.minutes(1)))
struct DeferredDurabilityTests {
    /// A client on a fresh container whose inbox exists, with the catalog the daemon tests use.
    private static func withClient(_ body: (IngestClient, Inbox, ContainerLayout) throws -> Void) throws {
        try DaemonCoreTests.withCore { inbox, layout, _, _ in
            try inbox.prepare()
            let client = IngestClient(layout: layout, catalog: try Catalog.load(path: DaemonCoreTests.catalog))
            try body(client, inbox, layout)
        }
    }

    /// The system calls from the inbox file's rename on.
    private static func callsAfterRename(_ faults: SyscallFaults) -> [SyscallFaults.Call] {
        let trace = faults.trace
        guard let rename = trace.firstIndex(of: .renameat) else { return [] }
        return Array(trace[rename...])
    }

    @Test("With no daemon the file is queued without fsyncs, then fsynced (file, then inbox) before 'no daemon' is reported")
    func noDaemonMakesTheFileDurable() throws {
        try Self.withClient { client, inbox, _ in
            let faults = SyscallFaults()
            let error = #expect(throws: BrokerError.self) {
                try faults.withFaults { () throws(BrokerError) in
                    _ = try client.enqueueAndWait([DaemonCoreTests.line(1)], source: "test", timeout: 5, signals: HeldSignals([]))
                }
            }
            guard case .unavailable? = error else {
                Issue.record("expected 'no entitlementd', got \(String(describing: error))")
                return
            }
            let trace = faults.trace
            let rename = try #require(trace.firstIndex(of: .renameat))
            #expect(!trace[..<rename].contains(.fsync), "nothing fsynced before the daemon can see the file")
            #expect(Array(trace.filter { $0 == .fsync }) == [.fsync, .fsync])
            #expect(trace.last == .fsync, "the inbox's fsync is the last call before the report")
            #expect(try inbox.pending().count == 1)
        }
    }

    @Test("A wait that times out makes the still-queued file durable before it reports the timeout")
    func timeoutMakesTheFileDurable() throws {
        try Self.withClient { client, inbox, layout in
            // A daemon that holds the container but never takes the file.
            let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
            defer { withExtendedLifetime(lock) {} }
            let faults = SyscallFaults()
            let error = #expect(throws: BrokerError.self) {
                try faults.withFaults { () throws(BrokerError) in
                    _ = try client.enqueueAndWait([DaemonCoreTests.line(1)], source: "test", timeout: 0.05, signals: HeldSignals([]))
                }
            }
            guard case .timedOut? = error else {
                Issue.record("expected a timeout, got \(String(describing: error))")
                return
            }
            #expect(Self.callsAfterRename(faults).filter { $0 == .fsync }.count == 2)
            #expect(faults.trace.last == .fsync)
            #expect(try inbox.pending().count == 1)
        }
    }

    @Test("A failed fsync of the deferred file is reported as a failed write (exit 75), never as queued")
    func failedDeferredFsyncIsAnError() throws {
        try Self.withClient { client, _, _ in
            let faults = SyscallFaults()
            faults.inject(.fail(.ioError), into: .fsync)
            let error = #expect(throws: BrokerError.self) {
                try faults.withFaults { () throws(BrokerError) in
                    _ = try client.enqueueAndWait([DaemonCoreTests.line(1)], source: "test", timeout: 5, signals: HeldSignals([]))
                }
            }
            guard case .io(_, "write", .ioError)? = error else {
                Issue.record("expected a write error carrying EIO, got \(String(describing: error))")
                return
            }
            #expect(error?.exitCode == 75)
        }
    }

    @Test("A terminating signal while waiting is held until the file is durable, then handed back to the caller")
    func signalMakesTheFileDurable() throws {
        try Self.withClient { client, inbox, layout in
            let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
            defer { withExtendedLifetime(lock) {} }
            let faults = SyscallFaults()
            let outcome = try faults.withFaults { () throws(BrokerError) -> IngestClient.QueuedWait? in
                let signals = HeldSignals([.terminate])
                // Sent to this thread alone, where it is now blocked: it waits for the client.
                pthread_kill(pthread_self(), SIGTERM)
                return try client.enqueueAndWait([DaemonCoreTests.line(1)], source: "test", timeout: 30, signals: signals)
            }
            let ticket = try #require(try inbox.pending().first)
            #expect(outcome == .interrupted(tickets: [ticket], by: .terminate))
            #expect(Self.callsAfterRename(faults).filter { $0 == .fsync }.count == 2)
            #expect(faults.trace.last == .fsync)
        }
    }

    @Test("What a power cut can leave of an unsynced inbox file (empty, zero-filled, cut inside a line) applies nothing and stops nothing")
    func tornInboxFilesAreSafe() throws {
        try DaemonCoreTests.withCore { inbox, layout, log, makeCore in
            try inbox.prepare()
            let whole = Array((DaemonCoreTests.line(1) + "\n").utf8)
            let leftovers: [(name: String, bytes: [UInt8])] = [
                ("00000000000000000001-1-1.events", []),
                ("00000000000000000002-1-1.events", [UInt8](repeating: 0, count: whole.count)),
                ("00000000000000000003-1-1.events", Array(whole.prefix(whole.count / 2))),
            ]
            for file in leftovers {
                try Data(file.bytes).write(to: URL(fileURLWithPath: inbox.directory + "/" + file.name))
            }
            let core = try makeCore()
            _ = try core.drainInbox()
            #expect(try inbox.pending().isEmpty, "every leftover leaves the inbox")
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 0)
            let rejected = Set((try? FileManager.default.contentsOfDirectory(atPath: layout.rejectedDirectory)) ?? [])
            #expect(rejected.isSuperset(of: [leftovers[1].name, leftovers[2].name]), "the damaged ones are refused: \(log.all)")
            // The daemon goes on: a whole file queued next is applied.
            _ = try inbox.enqueue([DaemonCoreTests.line(2)])
            _ = try core.drainInbox()
            #expect(try DaemonCoreTests.journaledTransactions(layout) == 1)
        }
    }
}
#endif
