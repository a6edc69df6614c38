import SystemShims

/// Reads small files the broker did not necessarily write itself (inbox files, the journal,
/// the state file) the careful way.
enum SecureFile {
    /// Reads `path` whole. Refuses a symlink (O_NOFOLLOW), anything but a regular file (opened
    /// non-blocking, so a FIFO never hangs), a file owned by another user, and a file larger than
    /// `maximumSize` bytes. Errors name the path and the problem.
    static func read(path: String, maximumSize: Int) throws(BrokerError) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec]) } catch {
            if error == .tooManySymbolicLinkLevels { throw .badInput("\(path): is a symbolic link") }
            throw .io(path: path, operation: "open", errno: error)
        }
        let status: FileStatus
        do { status = try fd.fstat() } catch { throw .io(path: path, operation: "fstat", errno: error) }
        guard status.type == .regular else { throw .badInput("\(path): is a \(status.type.rawValue), not a regular file") }
        guard status.userID == ProcessIdentity.effectiveUserID else {
            throw .badInput("\(path): owned by uid \(status.userID), not \(ProcessIdentity.effectiveUserID)")
        }
        do { return try fd.readAll(limit: maximumSize, expectedSize: Int(status.size)) } catch {
            switch error {
            case .exceedsLimit(let limit): throw .badInput("\(path): larger than the \(limit)-byte limit")
            case .system(let errno): throw .io(path: path, operation: "read", errno: errno)
            }
        }
    }
}
