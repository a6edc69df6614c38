import EntitlementModel
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import SystemShims

/// What `entitlementctl ingest` does: validate every line, queue them durably as one inbox file,
/// and optionally wait until the daemon has published a generation that includes them.
public struct IngestClient: Sendable {
    /// The container whose inbox events are queued into.
    public let layout: ContainerLayout
    /// The catalog lines are validated against (environment, bundle id, signatures), as the daemon does.
    public let catalog: Catalog

    /// A client for `layout`'s inbox. Nothing is opened until ``enqueue(_:source:)``.
    public init(layout: ContainerLayout, catalog: Catalog) {
        self.layout = layout
        self.catalog = catalog
    }

    /// Validates all `lines` (blank lines skipped) before queueing any: one bad line refuses the
    /// whole input with ``BrokerError/badInput(_:)`` naming `source:line`. Returns the names of
    /// the inbox files once the events are durable (fsynced files and directory): one file, or
    /// several in order when the events would not fit the one file the daemon reads
    /// (``Inbox/enqueue(splitting:durable:)``); none when there are no events.
    public func enqueue(_ lines: [String], source: String) throws(BrokerError) -> [String] {
        try queue(lines, source: source, durable: true)
    }

    /// Validates `lines` and queues the events kept as inbox files the daemon accepts, durably
    /// unless `durable` is `false` (see ``Inbox/enqueue(_:durable:)``); none when no event is kept.
    private func queue(_ lines: [String], source: String, durable: Bool) throws(BrokerError) -> [String] {
        let kept = try EventLine.decodeAll(lines, source: source, catalog: catalog).map(\.line)
        guard !kept.isEmpty else { return [] }
        return try Inbox(directory: layout.inboxDirectory).enqueue(splitting: kept, durable: durable)
    }

    /// Whether a daemon holds the container.
    public var isDaemonRunning: Bool { DaemonLock.isHeld(path: layout.daemonLockPath) }

    /// What ``enqueueAndWait(_:source:timeout:signals:)`` came to when it returns.
    package enum QueuedWait: Equatable {
        /// A published generation (when one is readable) includes the events, which the
        /// daemon journaled durably before publishing.
        case published(tickets: [String], generation: Int64?)
        /// One of the held signals arrived while waiting; the events are durably queued.
        case interrupted(tickets: [String], by: SignalNumber)
    }

    /// `ingest --wait`: validates and queues `lines` as ``enqueue(_:source:)`` does, then waits
    /// as ``waitUntilPublished(_:timeout:)`` does, without making the events wait for the inbox
    /// file's two fsyncs first. Returns `nil` when there are no events.
    ///
    /// The file is queued without fsyncs, so the daemon can read it at once; success needs none,
    /// since the daemon journals (fsync) before it publishes. Every other outcome that leaves the
    /// events queued makes the file durable (``Inbox/makeDurable(_:)``) before it is reported:
    /// a timeout, no daemon, and a signal of `signals` (held by the caller before this call, so
    /// none can end the process while the file is not durable). A refusal needs nothing: the
    /// events are not queued. A process killed uncatchably (`SIGKILL`) or a power cut while
    /// waiting acknowledged nothing; see ``Inbox`` for what the daemon then finds.
    /// - Throws: what ``enqueue(_:source:)`` and ``waitUntilPublished(_:timeout:)`` throw;
    ///   ``BrokerError/io(path:operation:errno:)`` instead when making the file durable fails.
    package func enqueueAndWait(
        _ lines: [String], source: String, timeout: Double, signals: borrowing HeldSignals
    ) throws(BrokerError) -> QueuedWait? {
        let tickets = try queue(lines, source: source, durable: false)
        guard !tickets.isEmpty else { return nil }
        let inbox = Inbox(directory: layout.inboxDirectory)
        let end: WaitEnd
        do {
            end = try wait(for: tickets, timeout: timeout, signals: signals)
        } catch {
            if case .badInput = error { throw error }
            for ticket in tickets { _ = try inbox.makeDurable(ticket) }
            throw error
        }
        switch end {
        case .published(let generation): return .published(tickets: tickets, generation: generation)
        case .interrupted(let signal):
            for ticket in tickets { _ = try inbox.makeDurable(ticket) }
            return .interrupted(tickets: tickets, by: signal)
        }
    }

    /// Waits until the daemon has taken `ticket` out of the inbox and returns the published
    /// generation. The daemon deletes a file only once a published generation reflects its
    /// events; a file it refused it moves to `rejected/` after writing a ``RefusalRecord``.
    ///
    /// Blocks the calling thread and starts none: the inbox is watched with inotify for
    /// promptness and checked every 200 ms regardless, so waiting works where inotify is
    /// unavailable (its limits reached) too.
    /// - Throws: ``BrokerError/badInput(_:)`` naming the rejected file and the daemon's reason
    ///   when the daemon refused the events; ``BrokerError/unavailable(_:)`` when no daemon runs
    ///   (the events stay queued) or when the inbox itself was removed with the events (the
    ///   container deleted); ``BrokerError/timedOut(_:)`` after `timeout` seconds.
    public func waitUntilPublished(_ ticket: String, timeout: Double) throws(BrokerError) -> Int64? {
        switch try wait(for: [ticket], timeout: timeout, signals: HeldSignals([])) {
        case .published(let generation): generation
        case .interrupted: nil
        }
    }

    private enum WaitEnd {
        case published(generation: Int64?)
        case interrupted(SignalNumber)
    }

    /// The wait of ``waitUntilPublished(_:timeout:)`` for every one of `tickets`, which also
    /// ends when a signal of `signals` arrives.
    private func wait(for tickets: [String], timeout: Double, signals: borrowing HeldSignals) throws(BrokerError) -> WaitEnd {
        let inbox = Inbox(directory: layout.inboxDirectory)
        let inboxIdentity = Self.identity(of: layout.inboxDirectory)
        let start = Clocks.monotonicNanoseconds
        let timeoutNanoseconds = UInt64((timeout.isNaN ? 0 : min(max(timeout, 0), 1e9)) * 1e9)
        // Set up before the first look, so a removal after it wakes the wait. A watch that
        // cannot start (inotify limits) leaves the 200 ms looks.
        let removals = InboxRemovals(directory: layout.inboxDirectory)
        var waiting = tickets[...]
        while true {
            if let signal = signals.takePending() { return .interrupted(signal) }
            let elapsed = Clocks.monotonicNanoseconds &- start
            while let ticket = waiting.first, let outcome = waitOutcome(
                ticket, inbox: inbox, inboxIdentity: inboxIdentity, pastDeadline: elapsed >= timeoutNanoseconds, timeout: timeout)
            {
                try outcome.get()
                waiting.removeFirst()
            }
            if waiting.isEmpty { break }
            let left = timeoutNanoseconds - elapsed
            removals.wait(milliseconds: CInt(min(200, (left + 999_999) / 1_000_000)), orSignalsOn: signals.descriptor)
        }
        return .published(generation: SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot?.generation)
    }

    /// What one look at the inbox says about `ticket`: `nil` to keep waiting, success once the
    /// daemon applied it, a failure when it refused it, when the inbox was removed with it, when
    /// no daemon holds the container, or when the deadline passed.
    private func waitOutcome(
        _ ticket: String, inbox: Inbox, inboxIdentity: FileIdentity?, pastDeadline: Bool, timeout: Double
    ) -> Result<Void, BrokerError>? {
        if !inbox.contains(ticket) {
            if let reason = RefusalRecord.reason(for: ticket, in: layout.rejectedDirectory) {
                return .failure(.badInput("\(layout.rejectedDirectory)/\(ticket): refused by entitlementd: \(reason)"))
            }
            // The daemon deletes a file from the inbox it holds; a file gone with its inbox
            // (the container deleted, perhaps recreated) was never applied.
            // It also publishes before it deletes: with no readable snapshot the file went with
            // a container being removed, not through the daemon.
            guard inboxIdentity != nil, Self.identity(of: layout.inboxDirectory) == inboxIdentity,
                SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot != nil
            else {
                return .failure(.unavailable("\(layout.inboxDirectory): removed with the queued events before entitlementd applied them"))
            }
            return .success(())
        }
        if !isDaemonRunning {
            // The daemon may have finished with the file between the two looks.
            if !inbox.contains(ticket) {
                return waitOutcome(ticket, inbox: inbox, inboxIdentity: inboxIdentity, pastDeadline: pastDeadline, timeout: timeout)
            }
            return .failure(.unavailable("events queued in \(layout.inboxDirectory), but no entitlementd holds \(layout.container)"))
        }
        if pastDeadline { return .failure(.timedOut("events queued, but not published within \(Self.format(timeout)) s")) }
        return nil
    }

    /// Device and inode of a directory: which directory a path names, to notice it replaced.
    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private static func identity(of path: String) -> FileIdentity? {
        (try? fileStatus(atPath: path, followSymlinks: false)).map { FileIdentity(device: $0.device, inode: $0.inode) }
    }

    /// An inotify instance that becomes readable when an entry leaves the inbox (deleted or
    /// moved out) or the inbox itself goes: what ends a wait early, polled on the waiting thread.
    /// Without inotify (its limits reached) ``wait(milliseconds:)`` just sleeps.
    private struct InboxRemovals: ~Copyable {
        /// The inotify descriptor, or -1 (which `poll` skips) when no watch could be made.
        private let inotify: CInt

        init(directory: String) {
            let mask = InotifyBits.delete | InotifyBits.movedFrom | InotifyBits.deleteSelf | InotifyBits.moveSelf | InotifyBits.onlyDirectory
            do throws(Errno) {
                let descriptor = try FileDescriptor.makeInotify(nonBlocking: true)
                _ = try descriptor.addWatch(path: directory, mask: mask)
                inotify = descriptor.release()
            } catch {
                inotify = -1
            }
        }

        deinit { if inotify >= 0 { _ = try? FileDescriptor(adopting: inotify).close() } }

        /// Returns when an event arrives (having read them all: they only say "look again"),
        /// when `signals` (a `signalfd`, or -1) is readable, or after `milliseconds`.
        func wait(milliseconds: CInt, orSignalsOn signals: CInt) {
            guard (try? FileDescriptor.waitForInput(inotify, signals, timeoutMilliseconds: milliseconds))?.first == true else { return }
            FileDescriptor.withUnowned(inotify) { descriptor in
                withUnsafeTemporaryAllocation(byteCount: 4096, alignment: InotifyEventHeader.alignment) { buffer in
                    while let count = try? descriptor.read(into: buffer), count > 0 {}
                }
            }
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
