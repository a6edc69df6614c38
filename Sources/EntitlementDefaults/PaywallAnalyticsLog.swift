import EntitlementModel
import SharedDefaults
import SystemShims

/// Paywall analytics as JSON Lines in the app-group container:
/// `<container>/Library/Analytics/paywall.jsonl`, one `PaywallEvent` per line.
///
/// Any number of processes may append at once. Each ``append(_:)`` opens the file with
/// `O_APPEND` and hands the whole line, newline included, to a single `write(2)`: on a local
/// file system the kernel positions and copies one such write as a unit, so lines from
/// different writers never interleave. The directory is created with mode 0750 and the file
/// with 0640 (whatever the umask). A symlink in place of the file is refused (`O_NOFOLLOW`).
/// Nothing is fsynced: analytics are not worth a disk flush per paywall.
public struct PaywallAnalyticsLog: Sendable {
    /// `<container>/Library/Analytics`.
    public let directoryPath: String
    /// `<container>/Library/Analytics/paywall.jsonl`.
    public let path: String

    /// Mode of the directory this log creates.
    public static let directoryMode: UInt32 = 0o750
    /// Mode of the file this log creates.
    public static let fileMode: UInt32 = 0o640
    /// Longest record accepted (bytes, newline included); a longer one is refused, not split.
    public static let maximumLineLength = 64 * 1024

    /// A log in the app-group container `container` (the directory holding `Library/`).
    public init(container: String) {
        directoryPath = container + "/Library/Analytics"
        path = directoryPath + "/paywall.jsonl"
    }

    /// Appends `event` as one line, in one `write(2)`, creating the directory and file if needed.
    ///
    /// - Throws: ``PaywallAnalyticsError`` naming the file: the directory or file cannot be
    ///   created or opened, the path is not a regular file, the record is too long, or the
    ///   write failed or was short (disk full); a short write leaves a partial line that
    ///   ``events()`` reports.
    public func append(_ event: PaywallEvent) throws(PaywallAnalyticsError) {
        let line = Array((event.jsonLine + "\n").utf8)
        guard line.count <= Self.maximumLineLength else {
            throw PaywallAnalyticsError(path: path, problem: "record of \(line.count) bytes exceeds \(Self.maximumLineLength)")
        }
        do throws(Errno) {
            try FileSystem.makeDirectories(path: directoryPath, mode: Self.directoryMode)
        } catch {
            throw PaywallAnalyticsError(path: directoryPath, problem: "create directory: \(error)")
        }
        let descriptor = try open()
        do throws(Errno) {
            try descriptor.closeAfter { descriptor throws(Errno) in
                guard try descriptor.fstat().type == .regular else { throw .invalidArgument }
                let written = try descriptor.write(line)
                guard written == line.count else { throw .noSpace }
            }
        } catch {
            throw PaywallAnalyticsError(path: path, problem: error == .invalidArgument ? "not a regular file" : "append: \(error)")
        }
    }

    /// Every record in the file, oldest first; an empty array when there is no file yet.
    ///
    /// - Throws: ``PaywallAnalyticsError`` when the file cannot be read or a line (including a
    ///   partial last line) does not decode, naming the line number.
    public func events() throws(PaywallAnalyticsError) -> [PaywallEvent] {
        let bytes: [UInt8]
        do throws(Errno) {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .noFollow])
            bytes = try descriptor.closeAfter { descriptor throws(Errno) in
                do throws(ReadAllError) { return try descriptor.readAll(limit: 256 << 20) } catch {
                    switch error {
                    case .system(let errno): throw errno
                    case .exceedsLimit: throw .fileTooLarge
                    }
                }
            }
        } catch {
            if error == .noSuchFileOrDirectory { return [] }
            throw PaywallAnalyticsError(path: path, problem: "read: \(error)")
        }
        var events: [PaywallEvent] = []
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index == lines.count - 1 {
                guard line.isEmpty else { throw PaywallAnalyticsError(path: path, problem: "line \(index + 1): no newline (torn record)") }
                break
            }
            do { events.append(try PaywallEvent(jsonLine: String(line))) } catch {
                throw PaywallAnalyticsError(path: path, problem: "line \(index + 1): \(error.message)")
            }
        }
        return events
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
            throw PaywallAnalyticsError(path: path, problem: "open: \(error)")
        }
    }
}
