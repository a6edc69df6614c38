import Glibc
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
/// A journal written before records were framed (one raw JSON line per event) is read as it is;
/// the daemon then replaces it with a framed checkpoint (``rewrite(_:)``) before appending.
///
/// Compaction replaces the whole file, in one atomic replace (temporary file, fsync, rename,
/// directory fsync), with a checkpoint of the facts that still matter (``JournalReplay/checkpoint(of:)``):
/// a crash leaves the old journal or the new one, and appends continue on the new one.
package final class Journal {
    package let path: String
    private var descriptor: Int32 = -1
    /// The file's length in bytes, as this object last wrote or read it.
    package private(set) var size = 0

    package init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// What ``open(inbox:)`` found.
    package struct Contents: Sendable {
        /// The intact records, oldest first.
        package var records: [JournalRecord]
        /// How the file is written. Nothing can be appended to an unframed journal before
        /// ``rewrite(_:)`` replaced it.
        package var format: JournalScan.Format
        /// Whether a torn last record was cut off (its event is still in the inbox).
        package var cutTornTail: Bool
    }

    /// Opens (creating, mode 0640) the journal and returns its records, oldest first.
    ///
    /// - Parameter inbox: the inbox whose queued lines tell a crash mid-append from damage, read
    ///   only when the last record is torn.
    /// - Throws: ``BrokerError/badInput(_:)`` with one line naming the file, the first damaged
    ///   record and what is wrong; ``BrokerError/io(path:operation:detail:)`` when a system call fails.
    package func open(inbox: Inbox) throws(BrokerError) -> Contents {
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        let bytes = try Self.read(path)
        let scan = JournalScan(bytes)
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
            try openDescriptor()
            if scan.intactLength < bytes.count {
                guard ftruncate(descriptor, off_t(scan.intactLength)) == 0 else {
                    throw .io(path: path, operation: "truncate torn tail", detail: "\(Errno(rawValue: errno))")
                }
            }
            // An empty journal gets its header with its first append, so opening one writes
            // nothing: a daemon started on a full disk opens it and retries its work.
            size = scan.intactLength
        case .unframed:
            size = bytes.count
        }
        return Contents(records: scan.records, format: scan.format, cutTornTail: cutTornTail)
    }

    /// The one-line report of damage at `damage` (and `more` damaged records after it).
    static func damageMessage(path: String, _ damage: JournalDamage, more: Int) -> String {
        let others = more > 0 ? " (and \(more) more damaged record\(more == 1 ? "" : "s"))" : ""
        return "\(path): \(damage)\(others); refusing to publish from a damaged journal: run 'entitlementctl journal-repair' to set the damage aside"
    }

    /// Appends one event record per line in one write and fsyncs (group commit). Call
    /// ``open(inbox:)`` first.
    package func append(_ lines: [String], durable: Bool = true) throws(BrokerError) {
        guard !lines.isEmpty else { return }
        var bytes: [UInt8] = size == 0 ? JournalRecord.header : []
        for line in lines { bytes += JournalRecord.encode(.event, line.utf8) }
        try write(bytes, durable: durable)
        size += bytes.count
    }

    /// Replaces the journal with `records`, atomically and durably, and appends to the new file
    /// from now on. On error the old journal is still in place and still appended to.
    package func rewrite(_ records: [JournalRecord]) throws(BrokerError) {
        let written = try Self.replace(path: path, records: records)
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        try openDescriptor()
        size = written
    }

    private func write(_ bytes: [UInt8], durable: Bool) throws(BrokerError) {
        precondition(descriptor >= 0, "Journal written before open(inbox:)")
        let originalLength = lseek(descriptor, 0, SEEK_END)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                // Leave no partial record behind (disk full): cut back to where this append began.
                if originalLength >= 0 { _ = ftruncate(descriptor, originalLength) }
                throw .io(path: path, operation: "append", detail: "\(Errno(rawValue: code))")
            }
            offset += written
        }
        if durable, fsync(descriptor) != 0 { throw .io(path: path, operation: "fsync", detail: "\(Errno(rawValue: errno))") }
    }

    private func openDescriptor() throws(BrokerError) {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode_t(ContainerLayout.fileMode))
        guard fd >= 0 else { throw .io(path: path, operation: "open", detail: "\(Errno(rawValue: errno))") }
        descriptor = fd
        // The mode is explicit, whatever the umask.
        guard fchmod(fd, mode_t(ContainerLayout.fileMode)) == 0 else {
            throw .io(path: path, operation: "fchmod", detail: "\(Errno(rawValue: errno))")
        }
    }

    /// The journal's bytes; a missing journal is empty.
    static func read(_ path: String) throws(BrokerError) -> [UInt8] {
        guard (try? fileStatus(atPath: path, followSymlinks: false)) != nil else { return [] }
        return try SecureFile.read(path: path, maximumSize: Int(Int32.max) << 16)
    }

    /// Replaces the file at `path` with a framed journal of `records`, atomically and durably;
    /// returns its length.
    @discardableResult
    static func replace(path: String, records: [JournalRecord]) throws(BrokerError) -> Int {
        var bytes = JournalRecord.header
        for record in records { bytes += JournalRecord.encode(record.kind, record.payload) }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        do { try AtomicFile.replace(directory: directory, name: name, bytes: bytes, mode: ContainerLayout.fileMode, durable: true) } catch {
            throw .io(path: path, operation: "rewrite", detail: "\(error)")
        }
        return bytes.count
    }
}
