import Dispatch
import EntitlementDefaults
import Synchronization
import SystemShims

/// The daemon's record of every accepted event: framed, checksummed records (``JournalRecord``),
/// appended and fsynced before the inbox file that carried them is deleted.
///
/// Opening reads and checks every record. A crash can leave at most one torn last record; when
/// an inbox file still holds the line it was writing (the append had not returned, so the file
/// was not deleted), the tail is cut off quietly and the event is applied again from the inbox.
/// Any other damage (a torn last record no inbox file holds, a checksum mismatch, a broken
/// newline) makes ``open(inbox:)`` throw, naming the record: the daemon must not publish
/// a state computed from a journal it cannot read whole. `entitlementctl journal-repair` sets
/// the damage aside (``JournalRepair``).
///
/// A journal written before records were framed (one raw JSON line per event), or framed in
/// version 1 (whose checkpoint does not say its length), is read as it is; the daemon then
/// replaces it with a checkpoint of version 2 (``rewrite(_:)``) before appending.
///
/// Every journal written begins with a checkpoint (``JournalCheckpoint``), written whole by an
/// atomic replace: a new journal gets an empty one before its first append. So a torn record can
/// only be an appended one, and a checkpoint with fewer records than it counts was cut short.
///
/// Compaction replaces the whole file, in one atomic replace (temporary file, fsync, rename,
/// directory fsync), with a checkpoint of the facts that still matter (``JournalReplay/checkpoint(of:carrying:)``):
/// a crash leaves the old journal or the new one, and appends continue on the new one.
package final class Journal {
    package let path: String
    /// The journal opened for appending (`O_APPEND`), once ``open(inbox:)`` or ``rewrite(_:)`` ran;
    /// shared with a ``PendingSync`` still running on it.
    private var file: SharedFileDescriptor?
    /// The file's length in bytes, as this object last wrote or read it.
    package private(set) var size = 0
    /// Whether the file must be replaced (``rewrite(_:)``) before it takes an append: it is
    /// unframed, or of version 1 with records.
    private var rewriteNeeded = false
    /// The thread ``syncInBackground()`` runs its `fsync`s on, made by the first one and kept
    /// for the journal's life, so a publish pays a wake-up, not a thread's creation and exit.
    private let syncThread = WorkerThread()

    package init(path: String) { self.path = path }

    /// What ``open(inbox:)`` found.
    package struct Contents: Sendable {
        /// The intact records, oldest first.
        package var records: [JournalRecord]
        /// How the file is written. Nothing can be appended to an unframed journal before
        /// ``rewrite(_:)`` replaced it.
        package var format: JournalScan.Format
        /// The framed format's version (``JournalScan/version``).
        package var version: Int
        /// Whether a torn last record was cut off (its event is still in the inbox).
        package var cutTornTail: Bool
    }

    /// Opens (creating, mode 0640) the journal and returns its records, oldest first.
    ///
    /// - Parameter inbox: the inbox whose queued lines tell a crash mid-append from damage, read
    ///   only when the last record is torn.
    /// - Throws: ``BrokerError/badInput(_:)`` with one line naming the file, the first damaged
    ///   record and what is wrong; ``BrokerError/io(path:operation:errno:)`` when a system call fails.
    package func open(inbox: Inbox) throws(BrokerError) -> Contents {
        file = nil
        let bytes = try Self.read(path)
        let scan = JournalScan(bytes)
        rewriteNeeded = scan.format == .unframed || (scan.version == 1 && !scan.records.isEmpty)
        var cutTornTail = false
        if let damage = scan.damage.first {
            throw .badInput(Self.damageMessage(path: path, damage, more: scan.damage.count - 1))
        }
        if let torn = scan.tornTail {
            let lines = try inbox.queuedLines()
            guard torn.offset == 0 || lines.contains(where: scan.tornTailBegins) else {
                let damage = JournalDamage(
                    index: torn.index, offset: torn.offset,
                    problem: "cut short after \(torn.bytes.count) bytes, and no queued inbox file holds its event", bytes: torn.bytes)
                throw .badInput(Self.damageMessage(path: path, damage, more: 0))
            }
            cutTornTail = true
        }
        switch scan.format {
        case .framed:
            try openFile()
            // A journal whose only record was torn is empty: it gets its header and checkpoint
            // again with its next append, never a header alone (a journal cut short).
            let intactLength = scan.records.isEmpty && scan.damage.isEmpty ? 0 : scan.intactLength
            if intactLength < bytes.count {
                try withOpenFile { file throws(BrokerError) in
                    do throws(Errno) { try file.truncate(to: intactLength) } catch {
                        throw .io(path: path, operation: "truncate torn tail", errno: error)
                    }
                }
            }
            // An empty journal gets its header and checkpoint with its first append, so opening
            // one writes nothing: a daemon started on a full disk opens it and retries its work.
            size = intactLength
        case .unframed:
            size = bytes.count
        }
        return Contents(records: scan.records, format: scan.format, version: scan.version, cutTornTail: cutTornTail)
    }

    /// The one-line report of damage at `damage` (and `more` damaged records after it).
    static func damageMessage(path: String, _ damage: JournalDamage, more: Int) -> String {
        let others = more > 0 ? " (and \(more) more damaged record\(more == 1 ? "" : "s"))" : ""
        return "\(path): \(damage)\(others); refusing to publish from a damaged journal: run 'entitlementctl journal-repair' to set the damage aside"
    }

    /// Whether ``append(_:durable:)`` may be called: not before ``open(inbox:)``, and not on an
    /// unframed journal or one of version 1 until ``rewrite(_:)`` replaced it.
    package var acceptsAppends: Bool { file != nil && !rewriteNeeded }

    /// Appends one event record per line in one write and fsyncs (group commit). Call
    /// ``open(inbox:)`` first. An empty journal is first given its header and an empty
    /// checkpoint, atomically.
    package func append(_ lines: [String], durable: Bool = true) throws(BrokerError) {
        guard !lines.isEmpty else { return }
        if size == 0 { try rewrite([]) }
        var bytes: [UInt8] = []
        for line in lines { JournalRecord.append(.event, line.utf8, to: &bytes) }
        try write(bytes, durable: durable)
        size += bytes.count
    }

    /// Starts an `fsync` of the journal on the journal's own thread, so that the caller can
    /// write something else meanwhile (the daemon's next snapshot) and wait for both. Returns
    /// `nil` when that thread cannot be started: the `fsync` then ran here, and threw on failure.
    package func syncInBackground() throws(BrokerError) -> PendingSync? {
        guard let descriptor = file else { preconditionFailure("Journal synced before open(inbox:)") }
        let pending = PendingSync(path: path)
        do throws(Errno) {
            // The records' write to the device starts here and now, not when the journal's
            // thread gets a processor (on busy cores, often only once this thread blocks in the
            // snapshot's fsync): the journal's data must not queue behind the snapshot's.
            descriptor.descriptor.startWriteback()
            try syncThread.run { pending.finish(Result { () throws(Errno) in try descriptor.descriptor.fsync() }) }
        } catch {
            do throws(Errno) { try descriptor.descriptor.fsync() } catch { throw .io(path: path, operation: "fsync", errno: error) }
            return nil
        }
        return pending
    }

    /// An `fsync` of the journal running on the journal's thread (``syncInBackground()``).
    package final class PendingSync: Sendable {
        private let path: String
        private let outcome = Mutex<Result<Void, Errno>?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        init(path: String) { self.path = path }

        fileprivate func finish(_ result: Result<Void, Errno>) {
            outcome.withLock { $0 = result }
            finished.signal()
        }

        /// Blocks until the `fsync` returned; throws ``BrokerError/io(path:operation:errno:)``
        /// when it failed. Call it once.
        package func wait() throws(BrokerError) {
            finished.wait()
            if case .failure(let error)? = outcome.withLock({ $0 }) { throw .io(path: path, operation: "fsync", errno: error) }
        }
    }

    /// Replaces the journal with `records`, atomically and durably, and appends to the new file
    /// from now on. On error the old journal is still in place and still appended to.
    package func rewrite(_ records: [JournalRecord]) throws(BrokerError) {
        let written = try Self.replace(path: path, records: records)
        file = nil
        rewriteNeeded = false
        try openFile()
        size = written
    }

    /// Appends `bytes` whole (a short write is continued, `EINTR` retried) and fsyncs when
    /// `durable`. When a write fails (disk full) the file is cut back to where this append
    /// began, so no partial record stays behind.
    private func write(_ bytes: [UInt8], durable: Bool) throws(BrokerError) {
        try withOpenFile { file throws(BrokerError) in
            let originalLength = try? file.seekToEnd()
            do throws(Errno) { try file.writeAll(bytes) } catch {
                if let originalLength { try? file.truncate(to: originalLength) }
                throw .io(path: path, operation: "append", errno: error)
            }
            if durable {
                do throws(Errno) { try file.fsync() } catch { throw .io(path: path, operation: "fsync", errno: error) }
            }
        }
    }

    private func withOpenFile<R>(_ body: (borrowing FileDescriptor) throws(BrokerError) -> R) throws(BrokerError) -> R {
        guard let file else { preconditionFailure("Journal written before open(inbox:)") }
        return try body(file.descriptor)
    }

    private func openFile() throws(BrokerError) {
        let mode = ContainerLayout.fileMode
        do {
            file = SharedFileDescriptor(
                try FileDescriptor.open(path, .readWrite, options: [.create, .append, .noFollow, .closeOnExec], permissions: mode))
        } catch {
            throw .io(path: path, operation: "open", errno: error)
        }
        // The mode is explicit, whatever the umask.
        try withOpenFile { file throws(BrokerError) in
            do throws(Errno) { try file.changeMode(mode) } catch { throw .io(path: path, operation: "fchmod", errno: error) }
        }
    }

    /// The journal's bytes; a missing journal is empty.
    static func read(_ path: String) throws(BrokerError) -> [UInt8] {
        guard (try? fileStatus(atPath: path, followSymlinks: false)) != nil else { return [] }
        return try SecureFile.read(path: path, maximumSize: Int(Int32.max) << 16)
    }

    /// Replaces the file at `path` with a framed journal of `records` (of version 2: beginning
    /// with a checkpoint start that counts the checkpoint's records among them, see
    /// ``JournalCheckpoint/beginningWithCheckpoint(_:)``), atomically and durably; returns its length.
    @discardableResult
    static func replace(path: String, records: [JournalRecord]) throws(BrokerError) -> Int {
        var bytes = JournalRecord.header
        for record in JournalCheckpoint.beginningWithCheckpoint(records) { JournalRecord.append(record.kind, record.payload, to: &bytes) }
        do { try AtomicFile.replace(path: path, bytes: bytes, mode: ContainerLayout.fileMode, durable: true) } catch {
            throw .io(path: path, operation: "rewrite", errno: error)
        }
        return bytes.count
    }
}
