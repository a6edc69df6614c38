import FoundationEssentials
import PropertyList
import Synchronization
import SystemShims

/// The App Group `UserDefaults` stand-in: one suite is one property-list file,
/// `<container>/Library/Preferences/<suiteName>.plist`, with a dictionary at its root.
///
/// ## Reading
/// Every getter first checks, with two stat calls (`fstat` of the kept directory, `fstatat` of the
/// file in it, see `ReadCache`), whether the file (or its directory) changed
/// since the last read: device, inode, size, modification and change times in nanoseconds, mode
/// and owner. If not, the cached dictionary is served without decoding. Otherwise the file is
/// opened relative to the directory (`openat`, `O_NOFOLLOW|O_NONBLOCK`) and validated; see
/// ``SharedDefaultsError`` for each refusal. The directory itself must be owned by an allowed
/// user (``Options/allowsDirectoryOwner(_:)``: an allowed file owner, or root) and not be
/// world-writable; the file must be owned by one of ``Options/allowedOwners``. Either may also
/// be owned by the writer that ``Options/writerDirectory`` names. A refused file never replaces what was read before:
/// the getters keep serving the last good dictionary and ``lastError`` says why. A missing file
/// reads as an empty dictionary. The last good file stays open, so its inode cannot be reused by
/// a later file that might then look unchanged (one descriptor per instance).
///
/// ## Writing, locking and durability
/// Each write is one read-modify-write under an exclusive `flock` on
/// `.<suiteName>.plist.lock` (a separate file that is never renamed), ending in one atomic
/// replace (temporary file in the `.staging` subdirectory, `fsync`, `rename` into place, `fsync` of the directory;
/// the two `fsync`s are skipped when ``Options/durable`` is false, which keeps atomicity but not
/// crash durability). Keys written by other processes are kept. The lock blocks the calling
/// thread and is released before the call returns; it is never held across an `await`. Writers
/// that do not take the lock (another program editing the file) can still lose updates, as with
/// `UserDefaults`.
///
/// All methods are safe to call from any thread; file I/O happens on the calling thread.
public final class SharedDefaults: Sendable {
    /// Limits and policies of one instance.
    public struct Options: Sendable {
        /// Whether writes `fsync` the file and its directory before returning.
        public var durable: Bool
        /// The largest file, in bytes, that is read or written.
        public var maxFileSize: Int
        /// The user IDs that may own the suite file; any other owner is refused. They, and
        /// root, may also own the preferences directory (see ``allowsDirectoryOwner(_:)``).
        ///
        /// When the reader (a widget, say) runs as another user than the writer (the daemon),
        /// put the writer's uid here: the reader then trusts the file and the directory the
        /// writer owns, and still refuses any third user's. The reader needs read and search
        /// access (the daemon's directories are mode 0750: share its group).
        public var allowedOwners: Set<UInt32> {
            get { owners.set }
            set { owners = Owners(newValue) }
        }

        /// ``allowedOwners``, kept as one user ID when there is one (the default): a one-shot
        /// reader then builds no `Set<UInt32>`, whose first instance in a process looks up
        /// `UInt32`'s conformance to `Hashable` among every conformance record of the binary.
        private var owners: Owners

        private enum Owners: Sendable {
            case one(UInt32)
            case any(Set<UInt32>)

            init(_ set: Set<UInt32>) { self = set.count == 1 ? .one(set.first!) : .any(set) }

            var set: Set<UInt32> {
                switch self {
                case .one(let uid): [uid]
                case .any(let set): set
                }
            }

            func contains(_ uid: UInt32) -> Bool {
                switch self {
                case .one(let owner): uid == owner
                case .any(let set): set.contains(uid)
                }
            }
        }

        /// The name of the writer's own directory beside the preferences directory
        /// (`<container>/Library/<name>`, a daemon's state directory), or `nil`. Its owner is
        /// trusted like one of ``allowedOwners``, for the suite file and for the preferences
        /// directory, while that directory and `<container>/Library` are both directories (not
        /// symbolic links) owned by that one user, which neither their group nor others may
        /// write: only that user, or root, can have made them so. A reader in the writer's group
        /// then needs no configuration to trust the writer, and still refuses every third user.
        ///
        /// It is looked up when the preferences directory is opened through its path, and again
        /// before a file of an owner not trusted so far is refused. The container's own parents
        /// are the operator's choice: one that another user may write lets that user put a
        /// container of their own in its place, as with any path a program is told to trust.
        public var writerDirectory: String?

        /// Whether a suite file owned by `uid` is trusted: `uid` is in ``allowedOwners``. (The
        /// writer found through ``writerDirectory`` is trusted as well, by the validated directory.)
        package func allowsFileOwner(_ uid: UInt32) -> Bool { owners.contains(uid) }

        /// Whether a preferences directory owned by `uid` is trusted: an allowed file owner
        /// (``allowedOwners``) or root (uid 0), who can replace any file anyway. The owner of
        /// the directory can rename any file in it, so a directory of another user would let
        /// that user swap in a file they saved earlier (an unlocked snapshot before a refund)
        /// even though the file itself is still owned by the writer.
        public func allowsDirectoryOwner(_ uid: UInt32) -> Bool {
            uid == 0 || owners.contains(uid)
        }

        /// `[geteuid()]`: only files this process's user owns are trusted (the default).
        public static var effectiveUserOnly: Set<UInt32> { [ProcessIdentity.effectiveUserID] }

        /// Options; the defaults suit a reader and writer running as the same user. A reader that
        /// runs as another user than the daemon (an app extension in the daemon's group) must name
        /// the daemon's user ID in `allowedOwners`, or every file is refused as foreign.
        ///
        /// - Parameters:
        ///   - durable: whether writes `fsync` the file and its directory (``durable``).
        ///   - maxFileSize: the largest file read or written, in bytes (``maxFileSize``).
        ///   - allowedOwners: who may own the suite file (``allowedOwners``); `nil`, the
        ///     default, is ``effectiveUserOnly``.
        ///   - writerDirectory: the writer's own directory in `<container>/Library`, whose
        ///     owner is trusted too (``writerDirectory``); `nil`, the default, trusts no one else.
        public init(
            durable: Bool = true, maxFileSize: Int = 1 << 20, allowedOwners: Set<UInt32>? = nil, writerDirectory: String? = nil
        ) {
            self.durable = durable
            self.maxFileSize = maxFileSize
            self.owners = allowedOwners.map(Owners.init) ?? .one(ProcessIdentity.effectiveUserID)
            self.writerDirectory = writerDirectory
        }
    }

    /// The suite's name (`group.com.example.app`).
    public let suiteName: String
    /// The app-group container directory.
    public let container: String
    /// The limits and owner policy this instance was made with.
    public let options: Options
    /// `<container>/Library/Preferences`.
    public let directoryPath: String
    /// `<suiteName>.plist`.
    public let fileName: String
    /// The suite file's full path.
    public let path: String
    /// The lock file's full path: `<directoryPath>/.<suiteName>.plist.lock`.
    public let lockFilePath: String

    let state: Mutex<State>
    /// Serialises this instance's writers (the `flock` does not: it belongs to one shared open
    /// file description) and keeps the lock file open between writes.
    let writer: Mutex<Writer>
    /// `.<suiteName>.plist.lock`.
    let lockFileName: String

    /// The suite file as a URL. Emitted into the caller, so that a reader that never asks for a
    /// URL does not link the part of FoundationEssentials that `URL` brings.
    @_alwaysEmitIntoClient
    public var fileURL: URL { URL(fileURLWithPath: path) }

    /// Describes the suite; nothing touches the file system until the first read or write.
    public init(suiteName: String, container: String, options: Options = .init()) {
        self.suiteName = suiteName
        self.container = container
        self.options = options
        let trimmed = container.count > 1 && container.hasSuffix("/") ? String(container.dropLast()) : container
        directoryPath = trimmed + "/Library/Preferences"
        fileName = suiteName + ".plist"
        path = directoryPath + "/" + fileName
        lockFileName = "." + fileName + ".lock"
        lockFilePath = directoryPath + "/" + lockFileName
        state = Mutex(State())
        writer = Mutex(Writer())
    }

    deinit {
        state.withLock { state in
            state.cache.forgetFile()
            state.directory = nil
        }
    }

    // MARK: Reading

    /// The value for `key`: from the file, else from the registered defaults, else `nil`.
    public func object(forKey key: String) -> PropertyListValue? {
        state.withLock { state in
            _ = try? refresh(&state, decode: decodeDictionary)
            return state.cache.contents[key] ?? state.registered[key]
        }
    }

    /// `true` for a boolean `true`, a non-zero number, or the strings `true`/`yes`/`1` (any case);
    /// `false` otherwise, including when the key is absent.
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .boolean(let value): value
        case .integer(let value): value != 0
        case .real(let value): value != 0
        case .string(let value): ["true", "yes", "1"].contains(value.lowercased())
        default: false
        }
    }

    /// The integer for `key`: an integer, a whole real in range, a boolean as 1/0, or a string
    /// that parses as an integer; 0 otherwise.
    public func integer(forKey key: String) -> Int {
        switch object(forKey: key) {
        case .integer(let value): Int(value)
        case .real(let value) where value.isFinite && abs(value) < 9.2e18: Int(value)
        case .boolean(let value): value ? 1 : 0
        case .string(let value): Int(value) ?? 0
        default: 0
        }
    }

    /// The number for `key`: a real, an integer, a boolean as 1/0, or a string that parses; 0
    /// otherwise.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .real(let value): value
        case .integer(let value): Double(value)
        case .boolean(let value): value ? 1 : 0
        case .string(let value): Double(value) ?? 0
        default: 0
        }
    }

    /// The string for `key`, or `nil` if absent or not a string.
    public func string(forKey key: String) -> String? { object(forKey: key)?.stringValue }
    /// The bytes for `key`, or `nil` if absent or not data.
    public func data(forKey key: String) -> [UInt8]? { object(forKey: key)?.dataValue }
    /// The array for `key`, or `nil` if absent or not an array.
    public func array(forKey key: String) -> [PropertyListValue]? { object(forKey: key)?.arrayValue }
    /// The dictionary for `key`, or `nil` if absent or not a dictionary.
    public func dictionary(forKey key: String) -> PropertyListDictionary? { object(forKey: key)?.dictionaryValue }
    /// The date for `key`, or `nil` if absent or not a date.
    public func date(forKey key: String) -> Date? { object(forKey: key)?.dateValue }

    /// Every key: the registered defaults overlaid with the file's contents.
    public func dictionaryRepresentation() -> PropertyListDictionary {
        state.withLock { state in
            _ = try? refresh(&state, decode: decodeDictionary)
            var merged = state.cache.contents
            for (key, value) in state.registered where merged[key] == nil { merged[key] = value }
            return merged
        }
    }

    /// Adds fallback values for keys the file does not have. In memory only, never written, and
    /// later registrations of a key replace earlier ones, as with `UserDefaults`.
    public func register(defaults: PropertyListDictionary) {
        state.withLock { state in
            for (key, value) in defaults { state.registered[key] = value }
        }
    }

    /// Checks the file now and says what was found.
    ///
    /// - Throws: why the current file was refused. The getters keep serving the last good
    ///   dictionary, and a refused file that has not changed is refused again without re-reading.
    public func reload() throws(SharedDefaultsError) -> ReloadResult {
        try state.withLock { state throws(SharedDefaultsError) in try refresh(&state, decode: decodeDictionary) }
    }

    /// Why the last look at the file refused it, or `nil` if it was good or missing.
    public var lastError: SharedDefaultsError? { state.withLock { $0.cache.lastError } }

}
