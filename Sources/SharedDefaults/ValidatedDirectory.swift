import SystemShims

/// The preferences directory, opened through its path and found safe to read a suite from.
///
/// Holding a value is the proof of the invariant: the only way to make one is
/// ``open(_:options:at:)``, which opens the path without following a symlink and checks the
/// open directory's `fstat`:
/// - it is a directory (a symlink is refused, never followed);
/// - it is owned by an allowed user (``SharedDefaults/Options/allowsDirectoryOwner(_:)``) or by
///   the writer (``SharedDefaults/Options/writerDirectory``, see ``trusts(owner:options:)``);
/// - it is not world-writable.
///
/// What protects the suite file is this directory *object*: only a writer of it can replace the
/// file, and only its owner can rename the file's entries. So every file operation goes through
/// ``descriptor`` (never through the path again), and ``status`` records which directory was
/// validated (device and inode) with which mode, owner and times.
///
/// The value is kept between calls; ``recheck(at:changeExpected:)`` says whether it may still be used, and
/// fails closed: anything it cannot prove unchanged is re-validated through the path by the
/// caller.
package struct ValidatedDirectory {
    /// Longest time, in nanoseconds, a kept directory is trusted without opening its path again:
    /// the bound on how long a renamed *ancestor* (the container, `Library`) goes unnoticed.
    package static let revalidationInterval: UInt64 = 1_000_000_000

    /// The open directory. Do not close it; it is closed when the last holder lets go.
    package let shared: SharedFileDescriptor
    /// The directory the path's last component was opened in (`O_PATH`: it only names it),
    /// through which ``recheck(at:changeExpected:)`` asks whether ``name`` still leads to this directory.
    private let parent: SharedFileDescriptor
    /// The path's last component (`.` when the path has none).
    private let name: String
    /// The directory's `fstat` when it was validated, or when ``recheck(at:changeExpected:)`` last found it
    /// still at its name. Its device and inode say which directory this is.
    package private(set) var status: FileStatus
    /// `CLOCK_MONOTONIC_COARSE` nanoseconds when the path was opened and checked.
    package let openedAt: UInt64
    /// ``SharedDefaults/Options/writerDirectory``: the name, in ``parent``, of the directory
    /// whose owner is the writer.
    private let writerDirectory: String?
    /// The writer's user ID as last found through ``writerDirectory`` (``trusts(owner:options:)``), or `nil`.
    private var writer: UInt32?

    /// The open directory's descriptor, for `openat`/`fstatat` relative to it.
    package var descriptor: FileDescriptor {
        _read { yield shared.descriptor }
    }

    /// Opens `path` without following a symlink and checks it (see the type's documentation).
    /// - Returns: `nil` when nothing is at `path`.
    /// - Throws: ``SharedDefaultsError/directoryIsSymlink(path:)``,
    ///   ``SharedDefaultsError/notADirectory(path:type:)``, ``SharedDefaultsError/foreignOwner(path:owner:)``,
    ///   ``SharedDefaultsError/directoryWorldWritable(path:)``, or ``SharedDefaultsError/system(path:operation:errno:)``.
    package static func open(_ path: String, options: SharedDefaults.Options, at now: UInt64) throws(SharedDefaultsError) -> ValidatedDirectory? {
        // A directory is kept and rechecked by its name in its parent: a path that does not end in
        // a real name (empty, `.`, `..`) has none, and is refused rather than rechecked vacuously.
        guard let (parentPath, name) = split(path) else { throw .system(path: path, operation: "open", errno: .invalidArgument) }
        // The path's walk up to its last component, as `open(path)` would do it (symlinks in it
        // followed), then the last component relative to where that walk ended.
        let parent: FileDescriptor
        do throws(Errno) {
            parent = try FileDescriptor.open(parentPath, .readOnly, options: [.pathOnly, .directory, .closeOnExec])
        } catch {
            return try missingOrRefused(path, error)
        }
        let directory: FileDescriptor
        do throws(Errno) {
            directory = try FileDescriptor.open(name, relativeTo: parent, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            return try missingOrRefused(path, error)
        }
        let status: FileStatus
        do throws(Errno) { status = try directory.fstat() } catch { throw .system(path: path, operation: "fstat", errno: error) }
        guard case .directory = status.type else { throw .notADirectory(path: path, type: status.type.rawValue) }
        var validated = ValidatedDirectory(
            shared: SharedFileDescriptor(directory), parent: SharedFileDescriptor(parent), name: name, status: status, openedAt: now,
            writerDirectory: options.writerDirectory)
        guard options.allowsDirectoryOwner(status.userID) || validated.isWriter(status.userID) else {
            throw .foreignOwner(path: path, owner: status.userID)
        }
        guard !status.isWorldWritable else { throw .directoryWorldWritable(path: path) }
        return validated
    }

    private init(
        shared: SharedFileDescriptor, parent: SharedFileDescriptor, name: String, status: FileStatus, openedAt: UInt64,
        writerDirectory: String?
    ) {
        self.shared = shared
        self.parent = parent
        self.name = name
        self.status = status
        self.openedAt = openedAt
        self.writerDirectory = writerDirectory
    }

    /// Whether a suite file owned by `uid` is trusted here: an allowed owner (`options`, the
    /// options this directory was opened with) or the writer. A user other than the writer last
    /// found looks the writer up again first (``isWriter(_:)``), so a writer that made its
    /// directory after this one was opened is trusted at once.
    package mutating func trusts(owner uid: UInt32, options: SharedDefaults.Options) -> Bool {
        options.allowsFileOwner(uid) || isWriter(uid)
    }

    /// Whether `uid` owns the writer's directory as ``SharedDefaults/Options/writerDirectory``
    /// requires: `<name>` in this directory's parent and that parent itself are directories of
    /// `uid` that neither their group nor others may write. Two `fstat`s, unless `uid` is the
    /// writer found last time.
    private mutating func isWriter(_ uid: UInt32) -> Bool {
        if let writer, writer == uid { return true }
        guard let writerDirectory else { return false }
        writer = nil
        guard let holder = try? parent.descriptor.fstat(), let own = try? parent.descriptor.status(ofEntry: writerDirectory) else {
            return false
        }
        func isOwnersAlone(_ status: FileStatus) -> Bool {
            guard case .directory = status.type else { return false }
            return status.userID == own.userID && status.mode & 0o022 == 0
        }
        guard isOwnersAlone(holder), isOwnersAlone(own) else { return false }
        writer = own.userID
        return own.userID == uid
    }

    /// What a failed open on the way to `path` means: `nil` when nothing is there, else why the
    /// path is refused.
    private static func missingOrRefused(_ path: String, _ error: Errno) throws(SharedDefaultsError) -> ValidatedDirectory? {
        switch error {
        case .noSuchFileOrDirectory:
            return nil
        case .tooManySymbolicLinkLevels:
            throw .directoryIsSymlink(path: path)
        case .notDirectory:
            // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR; tell the two apart.
            let type = (try? fileStatus(atPath: path, followSymlinks: false))?.type
            if type == .symlink { throw .directoryIsSymlink(path: path) }
            throw .notADirectory(path: path, type: type?.rawValue ?? "non-directory")
        default:
            throw .system(path: path, operation: "open", errno: error)
        }
    }

    /// `path` as the directory that holds its last component, and that component (trailing
    /// slashes ignored); `nil` when that component is empty, `.` or `..`.
    private static func split(_ path: String) -> (parent: String, name: String)? {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        let slash = path.lastIndex(of: "/")
        let name = slash.map { path[path.index(after: $0)...] } ?? path
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        guard let slash else { return (".", String(name)) }
        let parent = path[..<slash]
        return (parent.isEmpty ? "/" : String(parent), String(name))
    }

    /// Whether this directory may still be used at `now` without opening its path again; it
    /// takes the directory's current attributes as ``status`` on the way. `false` means:
    /// validate through the path (``open(_:options:at:)``).
    ///
    /// System calls: one `fstat` of ``descriptor`` when that shows the directory exactly as
    /// known; otherwise, or straight away with `changeExpected`, one `fstatat` of its name,
    /// without following a symlink, in the directory the path led to when it was opened. (On
    /// these machines an `fstat` costs about 0.5 µs and a look-up by name about 1.2 µs: a caller
    /// that knows entries changed, a reader a watcher woke or a writer after its own rename,
    /// skips the `fstat` that would only show new times.)
    ///
    /// Why a `true` is safe:
    /// - It is only given within ``revalidationInterval`` of the last open through the path.
    ///   Renaming an *ancestor* does not touch this directory: for at most that long the reader
    ///   keeps reading the directory it validated, still protected by its own checked mode.
    ///   Stale for a second at worst, never following anything it has not validated.
    /// - An unchanged `fstat` (device, inode, mode, owner, link count, times) is this very
    ///   directory as validated: a `chmod`/`chown` changes its mode and ctime, and renaming or
    ///   removing it changes its ctime (ext4, tmpfs) or its link count (0 once removed).
    /// - Otherwise the name must still lead to this very directory (same device and inode,
    ///   still a directory), so what the look-up returns is this directory's own current
    ///   `fstat`: its mode and owner are checked as validated, only its times may differ
    ///   (entries are added and replaced in it all the time). A directory renamed away or
    ///   removed, a symlink or another directory put in its place, a `chmod` or `chown`: each
    ///   makes this `false`, and the path is opened and checked at once. (Looking up the name
    ///   there rather than the whole path again answers the same question for this directory;
    ///   what only the whole path could add is an ancestor's rename, covered above.)
    /// The suite file itself is not judged here: the caller compares it on every call.
    package mutating func recheck(at now: UInt64, changeExpected: Bool = false) -> Bool {
        guard now &- openedAt < Self.revalidationInterval else { return false }
        if !changeExpected, let current = try? descriptor.fstat(), current == status { return true }
        guard let named = try? parent.descriptor.status(ofEntry: name), isSameSafeDirectory(named) else { return false }
        status = named  // `openedAt` stays: the path is re-opened on time
        return true
    }

    /// Whether `current` is still the directory ``status`` describes (device, inode, mode,
    /// owner), still linked, still a directory and not world-writable: only its times may
    /// differ, as they do whenever an entry is added or replaced.
    package func isSameSafeDirectory(_ current: FileStatus) -> Bool {
        // Matched, not compared with `==`: `FileType`'s `==` is another module's, called through
        // its `Equatable` witness on every refresh.
        guard case .directory = current.type else { return false }
        return !current.isWorldWritable && current.linkCount > 0 && current.device == status.device
            && current.inode == status.inode && current.mode == status.mode && current.userID == status.userID
    }

    /// Whether `other` holds the same open descriptor with the same known status (nothing
    /// replaced or re-checked it in between).
    package func isSameValidation(as other: ValidatedDirectory) -> Bool {
        shared === other.shared && status == other.status
    }
}
