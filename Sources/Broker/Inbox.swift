import EntitlementDefaults
import FoundationEssentials
import SystemShims

/// The durable spool between `entitlementctl ingest` and the daemon.
///
/// Each enqueue is one file (several in order for more than ``maximumFileSize`` bytes) written
/// with ``AtomicFile/replace(directory:name:bytes:mode:durable:)`` (temp file, fsync, rename,
/// directory fsync), so a file is either absent or complete, and once
/// `enqueue` returns the events survive `kill -9` of any process and a power cut. A caller that
/// will learn from the daemon that the events are journaled may queue without the fsyncs and
/// call ``makeDurable(_:)`` on every other outcome; until then a power cut may leave the file
/// empty (the daemon finds no events in it), zero-filled or cut inside a line (the daemon
/// refuses it whole), or cut between lines (the daemon applies the whole lines). The daemon
/// deletes a file only after its events are in the journal. Names sort by enqueue time.
package struct Inbox: Sendable {
    package let directory: String
    /// Largest inbox file the daemon reads (bytes): ``enqueue(splitting:durable:)`` queues no
    /// larger one. It holds at least one line of the largest size accepted.
    package static let maximumFileSize = 16 << 20

    package init(directory: String) { self.directory = directory }

    /// Creates the inbox (mode 0750) if needed.
    package func prepare() throws(BrokerError) {
        do { try FileSystem.makeDirectories(path: directory, mode: ContainerLayout.directoryMode) } catch {
            throw .io(path: directory, operation: "create directory", errno: error)
        }
    }

    /// Queues `lines` (JSON Lines, already validated) as one file; returns its name. Durably
    /// unless `durable` is `false`: then the file is complete for readers at once, and durable
    /// only after ``makeDurable(_:)``. For lines known to fit one file (at most
    /// ``maximumFileSize`` bytes); more are queued as ``enqueue(splitting:durable:)`` queues
    /// them, and only the first file's name is returned.
    package func enqueue(_ lines: [String], durable: Bool = true) throws(BrokerError) -> String {
        try enqueue(splitting: lines, durable: durable)[0]
    }

    /// Queues `lines` (JSON Lines, already validated, each at most ``EventLine/maximumLength``
    /// bytes) as consecutive files that each fit ``maximumFileSize``, the limit ``read(_:)``
    /// holds the daemon to, so the daemon refuses none of them for its size; returns their
    /// names, in inbox order (the lines' order). One file when `lines` fit one (or are none).
    /// Each file is queued as ``enqueue(_:durable:)`` queues one; when one fails, the files
    /// before it stay queued (each event applies once however often it is queued).
    package func enqueue(splitting lines: [String], durable: Bool = true, fromPeer: Bool = false) throws(BrokerError) -> [String] {
        if (try? fileStatus(atPath: directory, followSymlinks: false))?.type != .directory { try prepare() }
        let parts = Self.fileContents(of: lines)
        let names = Self.newNames(count: parts.count, fromPeer: fromPeer)
        for (name, bytes) in zip(names, parts) {
            do {
                try AtomicFile.replace(directory: directory, name: name, bytes: bytes, mode: ContainerLayout.fileMode, durable: durable)
            } catch {
                throw .io(path: directory + "/" + name, operation: "write", errno: error)
            }
        }
        return names
    }

    /// The bytes of the files `lines` are queued as: each line followed by LF, a new file
    /// begun wherever the next line would take the file past ``maximumFileSize``. At least one
    /// (empty for no lines).
    static func fileContents(of lines: [String]) -> [[UInt8]] {
        var files: [[UInt8]] = []
        var bytes: [UInt8] = []
        // The lines and their LFs appended in place: `joined(separator:)` on `[String]` is the
        // standard library's unspecialized generic code, a measurable part of a one-shot ingest.
        bytes.reserveCapacity(min(maximumFileSize, lines.reduce(0) { $0 + $1.utf8.count + 1 }))
        for line in lines {
            let size = line.utf8.count + 1
            if !bytes.isEmpty, bytes.count + size > maximumFileSize {
                files.append(bytes)
                bytes = []
                bytes.reserveCapacity(maximumFileSize)
            }
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        files.append(bytes)
        return files
    }

    /// Makes a file queued with `durable: false` durable: `fsync` of the file, then of the inbox
    /// (its name). Returns `false`, doing nothing, when the file is no longer queued.
    /// - Throws: ``BrokerError/io(path:operation:errno:)`` (operation `write`, as a failed
    ///   enqueue) when a call fails: the events are then not durably queued.
    package func makeDurable(_ name: String) throws(BrokerError) -> Bool {
        let path = directory + "/" + name
        do throws(Errno) {
            let directoryFD = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
            let file = try FileDescriptor.open(name, relativeTo: directoryFD, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
            try file.fsync()
            try directoryFD.fsync()
            return true
        } catch .noSuchFileOrDirectory {
            // The file (or the inbox with it) is gone: taken by the daemon, or removed.
            return false
        } catch {
            throw .io(path: path, operation: "write", errno: error)
        }
    }

    /// Names of queued files, oldest first. Temp files (leading dot) are skipped.
    ///
    /// One `opendir`/`getdents`/`closedir` pass over the directory (no per-entry `stat`, no
    /// Foundation), then a sort; a missing inbox is empty.
    package func pending() throws(BrokerError) -> [String] {
        let entries: [String]
        do { entries = try FileSystem.entries(ofDirectory: directory) } catch {
            if error == .noSuchFileOrDirectory { return [] }
            throw .io(path: directory, operation: "list", errno: error)
        }
        return entries.filter(Self.isQueuedName).sorted()
    }

    /// Whether `name` is that of a queued file (``suffix``), not a writer's temporary file (a
    /// leading dot) or anything else: what ``pending()`` lists and the daemon's inbox watch reports.
    package static func isQueuedName(_ name: String) -> Bool {
        name.first != "." && name.hasSuffix(suffix)
    }

    /// Whether `name` is still queued.
    package func contains(_ name: String) -> Bool {
        (try? fileStatus(atPath: directory + "/" + name, followSymlinks: false)) != nil
    }

    /// Reads a queued file's lines (``JSONLines``: LF or CRLF, a leading byte-order mark
    /// dropped, blank lines kept so numbers match the file) after checking that it is a regular
    /// file owned by this user, not a symlink, and at most ``maximumFileSize`` bytes. A line that
    /// is not valid UTF-8 is ``BrokerError/badInput(_:)`` naming the file and line.
    package func read(_ name: String) throws(BrokerError) -> [String] {
        let bytes = try SecureFile.read(path: directory + "/" + name, maximumSize: Self.maximumFileSize)
        do { return try JSONLines.split(bytes) } catch { throw .badInput("\(name):\(error)") }
    }

    /// Every line of every queued file, trimmed as the daemon journals them.
    package func queuedLines() throws(BrokerError) -> [String] {
        var lines: [String] = []
        for name in try pending() { lines += try read(name).map(EventLine.trimmed) }
        return lines
    }

    /// Deletes a processed file. A file already gone is fine.
    package func remove(_ name: String) throws(BrokerError) {
        do { try FileSystem.unlink(directory + "/" + name) } catch {
            guard error == .noSuchFileOrDirectory else { throw .io(path: directory + "/" + name, operation: "unlink", errno: error) }
        }
    }

    /// Moves a refused file to `rejected` (created if needed) for inspection, after writing its
    /// ``RefusalRecord`` there with `reason`, so whoever waits for the file can tell why it left.
    package func quarantine(_ name: String, into rejected: String, reason: String, durable: Bool = true) throws(BrokerError) {
        do { try FileSystem.makeDirectories(path: rejected, mode: ContainerLayout.directoryMode) } catch {
            throw .io(path: rejected, operation: "create directory", errno: error)
        }
        try RefusalRecord.write(reason, for: name, in: rejected, durable: durable)
        do { try FileSystem.rename(directory + "/" + name, to: rejected + "/" + name) } catch {
            guard error == .noSuchFileOrDirectory else { throw .io(path: directory + "/" + name, operation: "rename", errno: error) }
        }
    }

    static let suffix = ".events"

    /// `count` new names that sort in the order given: the wall clock's nanoseconds (plus the
    /// name's position, so one call's names never tie or depend on the clock's next reading),
    /// the process ID and a random number.
    /// What ends the name (before ``suffix``) of a file the companion link queued: the drain
    /// offers its events to no one, since they came from the only peer.
    static let peerMarker = "-peer"

    /// Whether the queued file `name` holds events received from the companion.
    package static func isFromPeer(_ name: String) -> Bool { name.hasSuffix(peerMarker + suffix) }

    private static func newNames(count: Int, fromPeer: Bool = false) -> [String] {
        let now = Clocks.realtimeNanoseconds
        let random = UInt32.random(in: 0...UInt32.max)
        return (0..<count).map { position in
            let digits = String(now + UInt64(position))
            let padded = String(repeating: "0", count: max(0, 20 - digits.count)) + digits
            return "\(padded)-\(ProcessIdentity.processID)-\(random)\(fromPeer ? peerMarker : "")\(suffix)"
        }
    }
}
