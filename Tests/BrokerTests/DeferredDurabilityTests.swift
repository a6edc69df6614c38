#if ENABLE_MOCKING
@testable import Broker
import EntitlementDefaults
import Entitlements
import Foundation
import Glibc
import ServiceRuntime
import SystemShims
import Testing
import TestSupport

/// `ingest --wait` queues its file without fsyncs (the daemon journals before it publishes), so
/// every outcome the daemon has not journaled must make the file durable before it is reported,
/// and whatever a power cut leaves of such a file must be safe for the daemon to read.
@Suite("Deferred durability of ingest --wait", .timeLimit(.minutes(10)))
struct DeferredDurabilityTests {
    /// A client on a fresh container whose inbox exists, with the catalog the daemon tests use.
    private static func withClient(_ body: (IngestClient, Inbox, ContainerLayout) async throws -> Void) async throws {
        let root = NSTemporaryDirectory() + "ingest-wait-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root, group: "group.core")
        let inbox = Inbox(directory: layout.inboxDirectory)
        try inbox.prepare()
        try await body(IngestClient(layout: layout, catalog: try Catalog.load(path: DaemonCoreTests.catalog)), inbox, layout)
    }

    /// `ingest --wait` of one event under `faults`, stopped by `signals` (the signal test's
    /// `SIGWINCH`, whose default is to be ignored, so it ends no other test; a wait that listens
    /// for none is not stopped by it): the wait's outcome or its error.
    private static func enqueueAndWait(
        _ client: IngestClient, faults: SyscallFaults, timeout: Double, signals: [UnixSignal] = []
    ) async -> Result<IngestClient.QueuedWait?, BrokerError> {
        // On a thread of its own, which the wait blocks, with the faults of this task.
        await faults.withFaults { () async -> Result<IngestClient.QueuedWait?, BrokerError> in
            await onOwnThread {
                Result { () throws(BrokerError) in
                    try client.enqueueAndWait([DaemonCoreTests.line(1)], source: "test", timeout: timeout, signals: signals)
                }
            }
        }
    }

    /// Whether the file was queued without fsyncs and then made durable, file then inbox: two
    /// fsyncs after its rename into the inbox, none before.
    private static func madeDurableAfterQueueing(_ faults: SyscallFaults) -> Bool {
        let trace = faults.trace
        guard let rename = trace.firstIndex(of: .renameat) else { return false }
        return !trace[..<rename].contains(.fsync) && trace[rename...].filter { $0 == .fsync }.count == 2
    }

    @Test("With no daemon the file is queued without fsyncs, then fsynced (file, then inbox) before 'no daemon' is reported")
    func noDaemonMakesTheFileDurable() async throws {
        try await Self.withClient { client, inbox, _ in
            let faults = SyscallFaults()
            let outcome = await Self.enqueueAndWait(client, faults: faults, timeout: 5)
            guard case .failure(.unavailable) = outcome else {
                Issue.record("expected 'no entitlementd', got \(outcome)")
                return
            }
            #expect(Self.madeDurableAfterQueueing(faults), "\(faults.trace)")
            let pending = try inbox.pending()
            #expect(pending.count == 1)
        }
    }

    @Test("A wait that times out makes the still-queued file durable before it reports the timeout")
    func timeoutMakesTheFileDurable() async throws {
        try await Self.withClient { client, inbox, layout in
            // A daemon that holds the container but never takes the file.
            let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
            defer { withExtendedLifetime(lock) {} }
            let faults = SyscallFaults()
            let outcome = await Self.enqueueAndWait(client, faults: faults, timeout: 0.05)
            guard case .failure(.timedOut) = outcome else {
                Issue.record("expected a timeout, got \(outcome)")
                return
            }
            #expect(Self.madeDurableAfterQueueing(faults), "\(faults.trace)")
            let pending = try inbox.pending()
            #expect(pending.count == 1)
        }
    }

    @Test("A failed fsync of the deferred file is reported as a failed write (exit 75), never as queued")
    func failedDeferredFsyncIsAnError() async throws {
        try await Self.withClient { client, _, _ in
            let faults = SyscallFaults()
            faults.inject(.fail(.ioError), into: .fsync)
            let outcome = await Self.enqueueAndWait(client, faults: faults, timeout: 5)
            guard case .failure(let error) = outcome, case .io(_, "write", .ioError) = error else {
                Issue.record("expected a write error carrying EIO, got \(outcome)")
                return
            }
            #expect(error.exitCode == 75)
        }
    }

    @Test("A terminating signal while waiting ends the wait once the file is durable, and is handed back to the caller")
    func signalMakesTheFileDurable() async throws {
        try await Self.withClient { client, inbox, layout in
            let lock = try DaemonLock.acquire(path: layout.daemonLockPath, container: layout.container)
            defer { withExtendedLifetime(lock) {} }
            let faults = SyscallFaults()
            async let outcome = Self.enqueueAndWait(client, faults: faults, timeout: 300, signals: [UnixSignal(rawValue: SIGWINCH)])
            // The wait listens for its signals before it queues the file. A loaded machine may
            // take long to get there; the signal is sent only once it has.
            let queued = try await eventually(timeout: .seconds(300)) { try !inbox.pending().isEmpty }
            try #require(queued, "the wait never queued its file")
            kill(getpid(), SIGWINCH)
            let ended = await outcome
            let ticket = try #require(try inbox.pending().first as String?)
            guard case .success(.interrupted(let tickets, let signal)?) = ended else {
                Issue.record("expected the wait interrupted, got \(ended)")
                return
            }
            #expect(tickets == [ticket])
            #expect(signal == SignalNumber(rawValue: SIGWINCH))
            #expect(Self.madeDurableAfterQueueing(faults), "\(faults.trace)")
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
