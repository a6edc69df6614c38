import SystemShims

/// Why a suite file was not read or not written. Every case names the path it is about, and
/// ``description`` is one line: `<path>: <problem>`.
public enum SharedDefaultsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The preferences directory is a symbolic link; it is never followed.
    case directoryIsSymlink(path: String)
    /// The preferences directory path names something other than a directory.
    case notADirectory(path: String, type: String)
    /// The preferences directory is writable by everyone, so anyone could swap the file.
    case directoryWorldWritable(path: String)
    /// The suite file is a symbolic link; it is never followed.
    case fileIsSymlink(path: String)
    /// The suite file is a FIFO, a directory, a socket or a device rather than a regular file.
    case notRegularFile(path: String, type: String)
    /// The suite file belongs to a user outside ``SharedDefaults/Options/allowedOwners``, or
    /// the preferences directory (then `path` names it) to a user
    /// ``SharedDefaults/Options/allowsDirectoryOwner(_:)`` refuses.
    case foreignOwner(path: String, owner: UInt32)
    /// The suite file is writable by everyone.
    case fileWorldWritable(path: String)
    /// The suite file (or the file a write would produce) is larger than
    /// ``SharedDefaults/Options/maxFileSize``.
    case tooLarge(path: String, size: Int64, limit: Int)
    /// The bytes are not a property list (garbage, truncated, unsupported value).
    case undecodable(path: String, reason: String)
    /// The property list's root is not a dictionary.
    case rootNotDictionary(path: String, type: String)
    /// A system call failed; `operation` names it, `errno` says how.
    case system(path: String, operation: String, errno: Errno)
    /// The new contents could not be encoded.
    case encodingFailed(path: String, reason: String)
    /// The body passed to ``SharedDefaults/update(_:)`` threw; nothing was written.
    case updateFailed(path: String, reason: String)

    /// The file or directory the error is about.
    public var path: String {
        switch self {
        case .directoryIsSymlink(let path), .notADirectory(let path, _), .directoryWorldWritable(let path),
            .fileIsSymlink(let path), .notRegularFile(let path, _), .foreignOwner(let path, _),
            .fileWorldWritable(let path), .tooLarge(let path, _, _), .undecodable(let path, _),
            .rootNotDictionary(let path, _), .system(let path, _, _), .encodingFailed(let path, _),
            .updateFailed(let path, _):
            path
        }
    }

    /// Whether the file was refused for safety (who may have written it, or what it is) rather
    /// than for its contents. A writer never replaces such a file.
    public var isSecurityRejection: Bool {
        switch self {
        case .directoryIsSymlink, .notADirectory, .directoryWorldWritable, .fileIsSymlink, .notRegularFile,
            .foreignOwner, .fileWorldWritable:
            true
        case .tooLarge, .undecodable, .rootNotDictionary, .system, .encodingFailed, .updateFailed:
            false
        }
    }

    /// Whether a system call failed (too many open files, out of memory, an I/O error, no
    /// permission) rather than the file being judged: nothing is known about the file, and
    /// reading it again may succeed, so a reader tries again rather than refusing it.
    public var isSystemFailure: Bool {
        if case .system = self { true } else { false }
    }

    /// Whether the file exists and is safe but its contents are not a dictionary property list;
    /// a writer replaces such a file.
    public var isContentRejection: Bool {
        switch self {
        case .undecodable, .rootNotDictionary: true
        default: false
        }
    }

    /// One line: the file's path and what is wrong with it.
    public var description: String {
        switch self {
        case .directoryIsSymlink(let path): "\(path): directory is a symbolic link; refusing to follow it"
        case .notADirectory(let path, let type): "\(path): expected a directory, found a \(type)"
        case .directoryWorldWritable(let path): "\(path): directory is world-writable; refusing to trust it"
        case .fileIsSymlink(let path): "\(path): is a symbolic link; refusing to follow it"
        case .notRegularFile(let path, let type): "\(path): is a \(type), not a regular file"
        case .foreignOwner(let path, let owner): "\(path): owned by uid \(owner), which is not an allowed owner"
        case .fileWorldWritable(let path): "\(path): is world-writable; refusing to trust it"
        case .tooLarge(let path, let size, let limit): "\(path): \(size) bytes exceeds the limit of \(limit) bytes"
        case .undecodable(let path, let reason): "\(path): not a property list: \(reason)"
        case .rootNotDictionary(let path, let type): "\(path): property list root is \(type), not a dictionary"
        case .system(let path, let operation, let errno): "\(path): \(operation) failed: \(errno)"
        case .encodingFailed(let path, let reason): "\(path): cannot encode the new contents: \(reason)"
        case .updateFailed(let path, let reason): "\(path): update aborted, nothing written: \(reason)"
        }
    }
}
