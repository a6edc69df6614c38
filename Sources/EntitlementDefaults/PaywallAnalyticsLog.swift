#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entitlements
import StoreKitFormats
import SharedDefaults
import SystemShims

/// Paywall analytics as JSON Lines in the app-group container:
/// `<container>/Library/Analytics/paywall.jsonl`, one `PaywallEvent` per line.
///
/// Written by the app's processes (`check --record`, `paywall dismissed`, a widget) and the
/// daemon (`upgradedFromPaywall`) at once. Each record is one `write(2)` of the whole line on an
/// `O_APPEND` descriptor, so records never tear or interleave; every writer also holds an
/// exclusive `flock` on `.paywall.lock` beside the log, so that the cooldown decision (read,
/// decide, append) and rotation are one step each. The directory is the daemon's group's: mode
/// 2770 (set-group-ID, so every file in it takes that group), the files 0660. A symlink in
/// place of a file is refused (`O_NOFOLLOW`). Nothing is fsynced: analytics are not worth a disk
/// flush per paywall.
///
/// Bounded: an append that finds the log at ``maximumFileSize`` or more first renames it to
/// `paywall.jsonl.1` (replacing the previous one), so the two files hold at most about twice
/// that; readers read `paywall.jsonl.1` then `paywall.jsonl`. A line that does not decode (a
/// record damaged on disk, a partial last line after a full disk) is skipped and counted
/// (``Records/damagedLines``), never an error.
public struct PaywallAnalyticsLog: Sendable {
    /// `<container>/Library/Analytics`.
    public let directoryPath: String
    /// `<container>/Library/Analytics/paywall.jsonl`.
    public let path: String
    /// `<container>/Library/Analytics/paywall.jsonl.1`: the records before the last rotation.
    public var rotatedPath: String { path + ".1" }
    /// The lock every writer holds while it appends (never renamed or deleted).
    public var lockPath: String { directoryPath + "/.paywall.lock" }
    /// Size at which the next append rotates the log.
    public let maximumFileSize: Int

    /// Mode of the directory: the daemon's group may create and append, and files inherit that group.
    public static let directoryMode: UInt32 = 0o2770
    /// Mode of the files this log creates (the log and its lock).
    public static let fileMode: UInt32 = 0o660
    /// Longest record accepted (bytes, newline included); a longer one is refused, not split.
    public static let maximumLineLength = 64 * 1024
    /// Default ``maximumFileSize``: 1 MiB, some ten thousand records.
    public static let defaultMaximumFileSize = 1 << 20

    /// A log in the app-group container `container` (the directory holding `Library/`).
    public init(container: String, maximumFileSize: Int = PaywallAnalyticsLog.defaultMaximumFileSize) {
        directoryPath = container + "/Library/Analytics"
        path = directoryPath + "/paywall.jsonl"
        self.maximumFileSize = max(1, maximumFileSize)
    }

    /// The readable records and how many lines were skipped as damaged.
    public struct Records: Sendable, Hashable {
        /// Every record that decodes, oldest first.
        public var events: [PaywallEvent]
        /// Lines that did not decode (skipped).
        public var damagedLines: Int
    }

    /// Creates the directory (mode ``directoryMode``) if it is missing; the daemon calls this
    /// at start so that the app's processes, in its group, can write in it.
    public func prepareDirectory() throws(PaywallAnalyticsError) {
        let parent = FileSystem.directoryAndName(of: directoryPath).directory
        do throws(Errno) {
            try FileSystem.makeDirectories(path: parent, mode: ContainerLayout.directoryMode)
            if try FileSystem.makeDirectory(path: directoryPath, mode: Self.directoryMode) {
                try FileSystem.changeMode(directoryPath, Self.directoryMode)
            }
        } catch {
            throw PaywallAnalyticsError(path: directoryPath, problem: "create directory: \(error)", errno: error)
        }
    }

    /// Appends `event` as one line, in one `write(2)`, creating the directory and file if needed
    /// and rotating a full log first.
    ///
    /// ```swift
    /// let log = PaywallAnalyticsLog(container: container)
    /// try log.append(PaywallEvent(.paywallDismissed, feature: "cards", reason: .limitReached, time: .now))
    /// ```
    ///
    /// - Throws: ``PaywallAnalyticsError`` naming the file: the directory or file cannot be
    ///   created or opened, the path is not a regular file, the record is too long, or the
    ///   write failed or was short (disk full).
    public func append(_ event: PaywallEvent) throws(PaywallAnalyticsError) {
        try locked { () throws(PaywallAnalyticsError) in try appendHoldingLock(event) }
    }

    /// Records that the paywall for a locked check was shown, unless one was recorded for the
    /// same feature within `cooldown` before `event.time` (the feature's `paywall.cooldown`,
    /// `FeatureRule.cooldown`); the read, the decision and the append are one step under the
    /// lock, so concurrent checks present the paywall once.
    ///
    /// ```swift
    /// if let shown = PaywallEvent.shown(for: decision, time: .now),
    ///    try log.recordShown(shown, cooldown: gate.rules["cards"]?.cooldown) { presentPaywall() }
    /// ```
    ///
    /// - Returns: whether the app should present the paywall now (then the event was appended).
    public func recordShown(_ event: PaywallEvent, cooldown: ISO8601Duration?) throws(PaywallAnalyticsError) -> Bool {
        try locked { () throws(PaywallAnalyticsError) in
            guard Self.shouldPresent(event.feature, at: event.time, cooldown: cooldown, in: try read().events) else { return false }
            try appendHoldingLock(event)
            return true
        }
    }

    /// Whether a paywall for `feature` may be presented at `time`: no `paywallShown` for it in
    /// `events` within `cooldown` before `time` (always, without a cooldown).
    public static func shouldPresent(_ feature: String, at time: Date, cooldown: ISO8601Duration?, in events: [PaywallEvent]) -> Bool {
        guard let cooldown else { return true }
        return !events.contains { $0.kind == .paywallShown && $0.feature == feature && $0.time <= time && cooldown.added(to: $0.time) > time }
    }

    /// Every readable record of the rotated and the current log, oldest first; an empty list
    /// when there is no log yet.
    ///
    /// - Throws: ``PaywallAnalyticsError`` only when a file exists and cannot be read.
    public func read() throws(PaywallAnalyticsError) -> Records {
        var records = Records(events: [], damagedLines: 0)
        for file in [rotatedPath, path] { Self.decode(try Self.contents(of: file), into: &records) }
        return records
    }

    /// The readable records (see ``read()``).
    public func events() throws(PaywallAnalyticsError) -> [PaywallEvent] { try read().events }

    static func decode(_ bytes: [UInt8], into records: inout Records) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let line = bytes[start..<(end ?? bytes.count)]
            if end == nil {
                records.damagedLines += 1
            } else if !line.isEmpty {
                do { records.events.append(try PaywallEvent(jsonLine: String(decoding: line, as: UTF8.self))) } catch {
                    records.damagedLines += 1
                }
            }
            start = (end ?? bytes.count) + 1
        }
    }

    private static func contents(of file: String) throws(PaywallAnalyticsError) -> [UInt8] {
        do throws(Errno) {
            let descriptor = try FileDescriptor.open(file, .readOnly, options: [.closeOnExec, .noFollow, .nonBlocking])
            return try descriptor.closeAfter { descriptor throws(Errno) in
                guard try descriptor.fstat().type == .regular else { throw .invalidArgument }
                do throws(ReadAllError) { return try descriptor.readAll(limit: 256 << 20) } catch {
                    switch error {
                    case .system(let errno): throw errno
                    case .exceedsLimit: throw .fileTooLarge
                    }
                }
            }
        } catch {
            if error == .noSuchFileOrDirectory { return [] }
            throw PaywallAnalyticsError(path: file, problem: error == .invalidArgument ? "not a regular file" : "read: \(error)", errno: error)
        }
    }

    /// Runs `body` holding the exclusive lock, creating the directory first if needed.
    private func locked<R>(_ body: () throws(PaywallAnalyticsError) -> R) throws(PaywallAnalyticsError) -> R {
        if !FileSystem.exists(atPath: directoryPath) { try prepareDirectory() }
        let lock: FileLock
        do throws(Errno) {
            lock = try FileLock(path: lockPath, permissions: Self.fileMode)
            try lock.lock()
        } catch {
            throw PaywallAnalyticsError(path: lockPath, problem: "lock: \(error)", errno: error)
        }
        defer { try? lock.unlock() }
        return try body()
    }

    private func appendHoldingLock(_ event: PaywallEvent) throws(PaywallAnalyticsError) {
        let line = Array((event.jsonLine + "\n").utf8)
        guard line.count <= Self.maximumLineLength else {
            throw PaywallAnalyticsError(path: path, problem: "record of \(line.count) bytes exceeds \(Self.maximumLineLength)")
        }
        var descriptor = try open()
        if let size = try? descriptor.fstat().size, size >= maximumFileSize {
            // Only lock holders rotate; a writer that opened the old file still appends to it
            // (now the rotated one), so no record is lost.
            do throws(Errno) { try FileSystem.rename(path, to: rotatedPath) } catch {
                throw PaywallAnalyticsError(path: path, problem: "rotate: \(error)", errno: error)
            }
            descriptor = try open()
        }
        do throws(Errno) {
            try descriptor.closeAfter { descriptor throws(Errno) in
                guard try descriptor.fstat().type == .regular else { throw .invalidArgument }
                let written = try descriptor.write(line)
                guard written == line.count else { throw .noSpace }
            }
        } catch {
            throw PaywallAnalyticsError(path: path, problem: error == .invalidArgument ? "not a regular file" : "append: \(error)", errno: error)
        }
    }

    /// Opens the file for appending; a file this call creates gets exactly ``fileMode``.
    private func open() throws(PaywallAnalyticsError) -> FileDescriptor {
        // Non-blocking so a FIFO planted in place of the file cannot hang the open; no effect on a regular file.
        let options: FileDescriptor.OpenOptions = [.append, .closeOnExec, .noFollow, .nonBlocking]
        do throws(Errno) {
            let created: FileDescriptor
            do throws(Errno) {
                created = try FileDescriptor.open(
                    path, .writeOnly, options: options.union([.create, .exclusiveCreate]), permissions: Self.fileMode)
            } catch {
                guard error == .exists else { throw error }
                return try FileDescriptor.open(path, .writeOnly, options: options)
            }
            try created.changeMode(Self.fileMode)
            return created
        } catch {
            throw PaywallAnalyticsError(path: path, problem: "open: \(error)", errno: error)
        }
    }
}
