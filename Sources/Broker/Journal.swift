import Glibc
import SystemShims

/// The daemon's record of every accepted event: raw JSON Lines, appended and fsynced before the
/// inbox file that carried them is deleted.
///
/// A crash can leave at most one torn last line (no trailing newline). ``replay()`` drops it and
/// truncates the file back to the last complete line; the event it held is still in the inbox,
/// because inbox files are deleted only after the append returned.
public final class Journal {
    public let path: String
    private var descriptor: Int32 = -1

    public init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Largest journal replayed (bytes); a bigger one is refused rather than read into memory.
    public static let maximumSize = 256 << 20

    /// Opens (creating, mode 0640) the journal and returns every complete line, oldest first.
    public func replay() throws(BrokerError) -> [String] {
        if descriptor < 0 {
            let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode_t(ContainerLayout.fileMode))
            guard fd >= 0 else { throw .io(path: path, operation: "open", detail: "\(Errno(rawValue: errno))") }
            descriptor = fd
            // The mode is explicit, whatever the umask.
            guard fchmod(fd, mode_t(ContainerLayout.fileMode)) == 0 else {
                throw .io(path: path, operation: "fchmod", detail: "\(Errno(rawValue: errno))")
            }
        }
        let bytes = try SecureFile.read(path: path, maximumSize: Self.maximumSize)
        guard let lastNewline = bytes.lastIndex(of: 0x0A) else {
            if !bytes.isEmpty { try truncate(to: 0) }
            return []
        }
        if lastNewline + 1 < bytes.count { try truncate(to: lastNewline + 1) }
        return String(decoding: bytes[...lastNewline], as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Appends `lines` in one write and fsyncs (group commit). Call ``replay()`` first.
    public func append(_ lines: [String], durable: Bool = true) throws(BrokerError) {
        guard !lines.isEmpty else { return }
        precondition(descriptor >= 0, "Journal.append before replay()")
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let originalLength = lseek(descriptor, 0, SEEK_END)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                // Leave no partial line behind (disk full): cut back to where this append began.
                if originalLength >= 0 { _ = ftruncate(descriptor, originalLength) }
                throw .io(path: path, operation: "append", detail: "\(Errno(rawValue: code))")
            }
            offset += written
        }
        if durable, fsync(descriptor) != 0 { throw .io(path: path, operation: "fsync", detail: "\(Errno(rawValue: errno))") }
    }

    private func truncate(to length: Int) throws(BrokerError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw .io(path: path, operation: "truncate torn tail", detail: "\(Errno(rawValue: errno))")
        }
    }
}
