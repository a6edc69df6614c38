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
/// only when a peer asks for them again (``lines(from:limit:)``).
package final class CompanionOutbox: Sendable {
    private struct State {
        /// Lines of sequences `first...`, in order.
        var lines: [[UInt8]] = []
        var first: UInt64 = 1
        var count: UInt64 = 0
    }

    package let path: String
    private let state = Mutex(State())
    private let file: SharedFileDescriptor

    /// Opens (creating) the outbox at `path`; a torn last record (a crash mid-append) is cut off,
    /// and damage ends the outbox at the last intact record, logged. When the file is new, it is
    /// seeded with `seed`: the event lines the journal holds.
    package init(path: String, acknowledged: UInt64, seed: () -> [String], log: (String) -> Void) throws(BrokerError) {
        self.path = path
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
                if !seeded.isEmpty { log("companion: offering the \(seeded.count) events of the journal to the companion") }
            }
            self.file = SharedFileDescriptor(file)
        } catch {
            throw .io(path: path, operation: "open companion outbox", errno: error)
        }
        let count = UInt64(lines.count)
        let first = min(acknowledged, count) + 1
        state.withLock {
            $0.count = count
            $0.first = first
            $0.lines = Array(lines[Int(first - 1)...])
        }
    }

    /// How many events were ever offered: the last sequence.
    package var count: UInt64 { state.withLock { $0.count } }

    /// Appends `lines` (accepted from this side's own ingest), durably when `durable`.
    package func append(_ lines: [String], durable: Bool) throws(BrokerError) {
        guard !lines.isEmpty else { return }
        var bytes: [UInt8] = []
        for line in lines { JournalRecord.append(.event, line.utf8, to: &bytes) }
        let originalLength = try? file.descriptor.seekToEnd()
        do {
            try file.descriptor.writeAll(bytes)
            if durable { try file.descriptor.fsync() }
        } catch {
            // No partial record stays behind to garble the next append (disk full).
            if let originalLength { try? file.descriptor.truncate(to: originalLength) }
            throw .io(path: path, operation: "append", errno: error)
        }
        state.withLock { state in
            state.lines += lines.map { Array($0.utf8) }
            state.count += UInt64(lines.count)
        }
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
        let events = JournalScan(bytes).records.filter { $0.kind == .event }
        guard sequence >= 1, Int(sequence - 1) < events.count else { return [] }
        let start = Int(sequence - 1)
        return (start..<min(events.count, start + limit)).map { (UInt64($0 + 1), Array(events[$0].payload)) }
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
