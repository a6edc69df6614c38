import EntitlementDefaults
import Synchronization
import SystemShims

/// The events this side offers its companion, numbered 1, 2, 3... in the order it accepted them:
/// a file of journal-framed event records (``JournalRecord``), appended durably by the drain
/// before the journal records the same lines, so an event the daemon acknowledged is always in
/// it, and a crash between the two only offers an event twice (the peer applies it once).
///
/// The lines not yet acknowledged by the peer are also held in memory for the link's thread;
/// acknowledged ones are dropped from memory (``trim(through:)``) and read back from the file
/// only when a peer asks for them again (``lines(from:limit:)``). Once the peer acknowledged
/// ``compactionBound`` lines more than the file's first, the file is rewritten by rename with
/// only the unacknowledged lines (``compact()``), so it holds what the peer lacks and no more.
/// A compacted file's checkpoint holds one summary record, `acknowledged <N>`: its events are
/// sequences `N+1...`, so numbering survives compaction and a crash leaves the old file or the
/// new one. The caller saves the acknowledged position durably before compacting, so a restart
/// never finds a position below the file's first event.
package final class CompanionOutbox: Sendable {
    private struct State {
        /// Lines of sequences `first...`, in order.
        var lines: [[UInt8]] = []
        var first: UInt64 = 1
        var count: UInt64 = 0
        /// Sequences `1...base` are no longer in the file (acknowledged, then compacted away).
        var base: UInt64 = 0
        /// Where appends go: the file now at `path`.
        var file: SharedFileDescriptor
    }

    /// How many acknowledged lines the file may hold before ``compact()`` rewrites it.
    package static let defaultCompactionBound: UInt64 = 4096

    package let path: String
    package let compactionBound: UInt64
    private let state: Mutex<State>
    private let appended = Mutex<(@Sendable () -> Void)?>(nil)

    /// Calls `body` (on the appending thread) after every append that is on disk, so the link
    /// sends the lines at once rather than after the rest of the drain (journal and publish).
    package func onAppend(_ body: @escaping @Sendable () -> Void) { appended.withLock { $0 = body } }

    /// Opens (creating) the outbox at `path`; a torn last record (a crash mid-append) is cut off,
    /// and damage ends the outbox at the last intact record, logged. When the file is new, it is
    /// seeded with `seed`: what the journal holds (``CompanionSeed``).
    package init(
        path: String, acknowledged: UInt64, compactionBound: UInt64 = CompanionOutbox.defaultCompactionBound, seed: () -> [String], log: (String) -> Void
    ) throws(BrokerError) {
        self.path = path
        self.compactionBound = max(1, compactionBound)
        var bytes: [UInt8] = []
        let existed = FileSystem.exists(atPath: path)
        if existed {
            do {
                let reading = try FileDescriptor.open(path, .readOnly)
                bytes = try reading.readAll(limit: 1 << 40)
            } catch {
                throw .badInput("\(path): cannot read the companion outbox: \(error)")
            }
        }
        let scan = JournalScan(bytes)
        if let damage = scan.damage.first { log("companion: \(path): \(damage); offering the \(scan.records.count) intact events before it") }
        var lines = scan.records.filter { $0.kind == .event }.map { Array($0.payload) }
        var base = scan.records.first { $0.kind == .summary }.flatMap { Self.compactedBase($0.payload) } ?? 0
        let opened: SharedFileDescriptor
        do {
            let file = try FileDescriptor.open(path, .writeOnly, options: [.closeOnExec, .create, .append], permissions: ContainerLayout.fileMode)
            let intact = scan.damage.isEmpty ? scan.intactLength : (scan.records.last.map { $0.offset + JournalRecord.encode($0.kind, $0.payload).count } ?? 0)
            if intact < bytes.count || bytes.isEmpty {
                try file.truncate(to: bytes.isEmpty ? 0 : intact)
            }
            if bytes.isEmpty || intact == 0 {
                let seeded = existed ? [] : seed()
                // Framed as a journal is, beginning with an empty checkpoint, so it scans as one.
                var header = JournalRecord.header
                JournalRecord.append(.checkpointStart, JournalCheckpoint.payload(count: 0), to: &header)
                for line in seeded { JournalRecord.append(.event, line.utf8, to: &header) }
                try file.truncate(to: 0)
                try file.writeAll(header)
                try file.fsync()
                lines = seeded.map { Array($0.utf8) }
                base = 0
                if !seeded.isEmpty { log("companion: offering the \(seeded.count) events of the journal to the companion") }
            }
            opened = SharedFileDescriptor(file)
        } catch {
            throw .io(path: path, operation: "open companion outbox", errno: error)
        }
        let count = base + UInt64(lines.count)
        let first = max(base, min(acknowledged, count)) + 1
        var held = State(file: opened)
        held.count = count
        held.first = first
        held.base = base
        held.lines = Array(lines[Int(first - 1 - base)...])
        state = Mutex(held)
    }

    /// The sequences `1...N` a compacted outbox's summary record says were dropped.
    private static func compactedBase(_ payload: some Collection<UInt8>) -> UInt64? {
        let words = JournalWords.split(Array(payload))
        guard words.count == 2, words[0] == "acknowledged" else { return nil }
        return UInt64(words[1])
    }

    /// How many events were ever offered: the last sequence.
    package var count: UInt64 { state.withLock { $0.count } }

    /// The first sequence the file still holds: those before it were acknowledged and compacted away.
    package var firstInFile: UInt64 { state.withLock { $0.base + 1 } }

    /// Whether the peer acknowledged enough of the file's lines that ``compact()`` should run.
    package var wantsCompaction: Bool { state.withLock { $0.first - 1 - $0.base >= compactionBound } }

    /// Rewrites the file by rename with only the lines not yet acknowledged, numbering kept (the
    /// old file or the new one survives a crash, never a mix), and appends go to the new file.
    /// Call it only once the acknowledged position it drops up to is saved durably.
    package func compact() throws(BrokerError) {
        let result: Result<UInt64, Errno> = state.withLock { state in
            let base = state.first - 1
            guard base > state.base else { return .success(0) }
            var bytes = JournalRecord.header
            let summary = Array("acknowledged \(base)".utf8)
            JournalRecord.append(.checkpointStart, JournalCheckpoint.payload(count: 1), to: &bytes)
            JournalRecord.append(.summary, summary, to: &bytes)
            for line in state.lines { JournalRecord.append(.event, line, to: &bytes) }
            do throws(Errno) {
                try AtomicFile.replace(path: path, bytes: bytes, mode: ContainerLayout.fileMode, durable: true)
                let file = try FileDescriptor.open(path, .writeOnly, options: [.closeOnExec, .append])
                state.file = SharedFileDescriptor(file)
            } catch { return .failure(error) }
            let dropped = base - state.base
            state.base = base
            return .success(dropped)
        }
        if case .failure(let error) = result { throw .io(path: path, operation: "compact companion outbox", errno: error) }
    }

    /// Appends `lines` (accepted from this side's own ingest), durably when `durable`.
    package func append(_ lines: [String], durable: Bool) throws(BrokerError) {
        guard !lines.isEmpty else { return }
        var bytes: [UInt8] = []
        for line in lines { JournalRecord.append(.event, line.utf8, to: &bytes) }
        // Under the lock, so a compaction cannot rename the file between the write and the count.
        let failure: Errno? = state.withLock { state in
            let file = state.file
            let originalLength = try? file.descriptor.seekToEnd()
            do throws(Errno) {
                try file.descriptor.writeAll(bytes)
                if durable { try file.descriptor.fsync() }
            } catch {
                // No partial record stays behind to garble the next append (disk full).
                if let originalLength { try? file.descriptor.truncate(to: originalLength) }
                return error
            }
            state.lines += lines.map { Array($0.utf8) }
            state.count += UInt64(lines.count)
            return nil
        }
        if let failure { throw .io(path: path, operation: "append", errno: failure) }
        appended.withLock { $0 }?()
    }

    /// Up to `limit` lines from sequence `sequence` on, each with its sequence.
    package func lines(from sequence: UInt64, limit: Int) -> [(UInt64, [UInt8])] {
        let held: [(UInt64, [UInt8])]? = state.withLock { state in
            guard sequence >= state.first else { return nil }
            let start = Int(sequence - state.first)
            guard start < state.lines.count else { return [] }
            let end = min(state.lines.count, start + limit)
            return (start..<end).map { (state.first + UInt64($0), state.lines[$0]) }
        }
        if let held { return held }
        // Asked again for what was acknowledged before (a peer that lost it): read the file.
        guard let reading = try? FileDescriptor.open(path, .readOnly), let bytes = try? reading.readAll(limit: 1 << 40) else { return [] }
        let records = JournalScan(bytes).records
        let base = records.first { $0.kind == .summary }.flatMap { Self.compactedBase($0.payload) } ?? 0
        let events = records.filter { $0.kind == .event }
        guard sequence > base, Int(sequence - 1 - base) < events.count else { return [] }
        let start = Int(sequence - 1 - base)
        return (start..<min(events.count, start + limit)).map { (base + UInt64($0 + 1), Array(events[$0].payload)) }
    }

    /// Drops from memory the lines the peer acknowledged.
    package func trim(through acknowledged: UInt64) {
        state.withLock { state in
            guard acknowledged >= state.first else { return }
            let drop = Int(min(acknowledged - state.first + 1, UInt64(state.lines.count)))
            state.lines.removeFirst(drop)
            state.first += UInt64(drop)
        }
    }
}
