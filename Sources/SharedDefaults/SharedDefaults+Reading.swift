import PropertyList
import SystemShims

extension SharedDefaults {
    /// Longest time, in nanoseconds, a kept directory descriptor is trusted without opening
    /// ``directoryPath`` again (see ``currentDirectory(_:)``).
    static let directoryRevalidationInterval: UInt64 = 1_000_000_000

    /// Brings `state` up to date with the file; see ``reload()``. Called with the mutex held.
    ///
    /// When nothing changed this costs two system calls and no path walk: `fstat` of the kept
    /// directory descriptor and `fstatat(directory, fileName, AT_SYMLINK_NOFOLLOW)`.
    func refresh(_ state: inout State) throws(SharedDefaultsError) -> ReloadResult {
        let path = path
        return try refresh(&state, decode: { bytes throws(SharedDefaultsError) in try Self.decodeDictionary(bytes, path: path) }, served: { $0 }).result
    }

    /// Like ``reload()``, but a changed file's bytes are given to `consume` instead of being
    /// decoded into the dictionary the getters serve (`consume` is called only with
    /// ``ReloadResult/changed``, and keeps what it decodes itself), and the getters of this
    /// instance serve an empty dictionary from then on. Every file check, the unchanged fast path
    /// and the refusal bookkeeping are the ones ``reload()`` uses; a `SharedDefaultsError` thrown
    /// by `consume` refuses the file like any other problem (the last good state is kept, the same
    /// unchanged bad file is not read again).
    ///
    /// Not generic on purpose: it is called from other modules on every refresh, and a generic
    /// entry point there would be run unspecialized, looking its types up at run time.
    package func reload(consume: ([UInt8]) throws(SharedDefaultsError) -> Void) throws(SharedDefaultsError) -> ReloadResult {
        try state.withLock { state throws(SharedDefaultsError) in
            try refresh(&state, decode: consume, served: { _ in [:] }).result
        }
    }

    /// The file's root dictionary, or why the bytes are not one (``SharedDefaultsError/undecodable(path:reason:)``,
    /// ``SharedDefaultsError/rootNotDictionary(path:type:)``).
    static func decodeDictionary(_ bytes: [UInt8], path: String) throws(SharedDefaultsError) -> [String: PropertyListValue] {
        let root: PropertyListValue
        do { root = try PropertyListCodec.decode(bytes) } catch { throw .undecodable(path: path, reason: error.description) }
        guard case .dictionary(let dictionary) = root else { throw .rootNotDictionary(path: path, type: root.kindInWords) }
        return dictionary
    }

    /// ``refresh(_:)`` with the decoding step given: `decode` turns a changed, validated file's
    /// bytes into `Decoded`, and `served` says which dictionary the getters serve from it.
    /// `decoded` is non-`nil` exactly when the result is ``ReloadResult/changed``.
    ///
    /// A missing file leaves this instance holding nothing in its directory: the pinned file
    /// and the directory descriptor are both closed. Linux sends a directory's
    /// `IN_DELETE_SELF`/`IN_IGNORED` only once the last reference to it is gone, so a reader
    /// that kept the emptied directory open while it was removed would keep every watcher of
    /// it (a follower, itself included) from learning that it is gone and re-arming on the
    /// recreated one. The next call opens the directory through its path again.
    func refresh<Decoded>(
        _ state: inout State, decode: ([UInt8]) throws(SharedDefaultsError) -> Decoded,
        served: (Decoded) -> [String: PropertyListValue]
    ) throws(SharedDefaultsError) -> (result: ReloadResult, decoded: Decoded?) {
        let current: (SharedFileDescriptor, FileStatus)
        do {
            guard let found = try currentDirectory(&state) else {
                state.becomeMissing()
                return (.missing, nil)
            }
            current = found
        } catch {
            throw record(error, in: &state, identity: nil)
        }
        let outcome = try refresh(&state, in: current, decode: decode, served: served)
        if outcome.result == .missing { state.forgetDirectory() }
        return outcome
    }

    /// ``refresh(_:decode:served:)`` in a directory already validated by the caller (a writer
    /// checks it once per update, under the file lock).
    func refresh<Decoded>(
        _ state: inout State, in validated: (SharedFileDescriptor, FileStatus), decode: ([UInt8]) throws(SharedDefaultsError) -> Decoded,
        served: (Decoded) -> [String: PropertyListValue]
    ) throws(SharedDefaultsError) -> (result: ReloadResult, decoded: Decoded?) {
        let (directory, directoryStatus) = validated
        let identity: FileIdentity
        do {
            identity = FileIdentity(directory: directoryStatus, file: try directory.descriptor.status(ofEntry: fileName))
        } catch .noSuchFileOrDirectory {
            state.becomeMissing()
            return (.missing, nil)
        } catch {
            throw record(.system(path: path, operation: "fstatat", errno: error), in: &state, identity: nil)
        }
        if identity == state.goodIdentity {
            state.lastError = nil
            return (.unchanged, nil)
        }
        if identity == state.rejectedIdentity, let lastError = state.lastError { throw lastError }
        do {
            guard let (decoded, status, descriptor) = try readValidatedFile(in: directory, &state, decode: decode) else {
                state.becomeMissing()
                return (.missing, nil)
            }
            state.accept(served(decoded), identity: FileIdentity(directory: directoryStatus, file: status), descriptor: descriptor)
            return (.changed, decoded)
        } catch {
            throw record(error, in: &state, identity: identity)
        }
    }

    /// The directory `checked` earlier in the same writer call, without a system call, if the
    /// state still holds that descriptor with that status (no getter replaced it meanwhile);
    /// otherwise ``currentDirectory(_:)``.
    func directory(_ state: inout State, checkedEarlier checked: (SharedFileDescriptor, FileStatus)) throws(SharedDefaultsError) -> (SharedFileDescriptor, FileStatus)? {
        if state.directory === checked.0, state.directoryStatus == checked.1 { return checked }
        return try currentDirectory(&state)
    }

    /// The validated preferences directory, or `nil` when it does not exist.
    ///
    /// The descriptor is kept open between calls and trusted while its `fstat` is exactly what
    /// it was when it was validated (device, inode, mode, owner, link count, times) and it was
    /// opened through the path less than ``directoryRevalidationInterval`` ago. Why that is
    /// enough, and fails closed:
    /// - What protects the suite file is the directory *object*: only a writer of that directory
    ///   can replace the file, so it must not be world-writable. A `chmod`/`chown` of it changes
    ///   its mode and ctime, so the next call re-validates it through the path.
    /// - Renaming or removing the directory itself changes its ctime (ext4, tmpfs) or its link
    ///   count (0 once removed): re-validated through the path at once, so a symlink or another
    ///   directory put in its place is seen (and refused or adopted) on that call.
    /// - Renaming an *ancestor* (`Library`, the container) does not touch this directory: for at
    ///   most ``directoryRevalidationInterval`` the reader keeps reading the directory it
    ///   validated, which is still protected by its own checked mode. Stale for a second at
    ///   worst, never following anything it has not validated.
    /// - The file itself is compared by `fstatat` on every call (inode, size, times, mode,
    ///   owner), and the last good file stays open, so a replaced file is always decoded and
    ///   validated again, including the directory's current mode.
    /// Entries added to the directory (other suites, temporary files, every atomic replace of the
    /// suite file by another process) change its times too, and so does a rename of the directory
    /// itself. When only that changed (same device, inode, type, mode and owner, still linked,
    /// not world-writable), one `lstat` of ``directoryPath`` tells the two apart: the path still
    /// names this directory, so the kept descriptor is kept (no re-open, no decode); anything
    /// else re-validates through the path as above.
    func currentDirectory(_ state: inout State) throws(SharedDefaultsError) -> (SharedFileDescriptor, FileStatus)? {
        let now = Self.coarseMonotonicNanoseconds()
        if let kept = state.directory, let known = state.directoryStatus,
            now &- state.directoryValidatedAt < Self.directoryRevalidationInterval,
            let status = try? kept.descriptor.fstat()
        {
            if status == known { return (kept, known) }
            if Self.isSameSafeDirectory(status, as: known),
                let atPath = try? fileStatus(atPath: directoryPath, followSymlinks: false),
                atPath.type == .directory, atPath.device == status.device, atPath.inode == status.inode
            {
                state.directoryStatus = status  // `directoryValidatedAt` stays: the path is re-opened on time
                return (kept, status)
            }
        }
        guard let (opened, status) = try openValidatedDirectory() else {
            state.forgetDirectory()
            return nil
        }
        state.adoptDirectory(opened, status: status, at: now)
        return (opened, status)
    }

    /// After this instance renamed a file into `directory`, takes the directory's new `fstat` as
    /// the known one (its times changed because of us), if it still passes the checks; otherwise
    /// the next call re-validates it through the path.
    func noteOwnWrite(in state: inout State) {
        guard let directory = state.directory, let known = state.directoryStatus else { return }
        guard let fresh = try? directory.descriptor.fstat(), Self.isSameSafeDirectory(fresh, as: known) else {
            state.directoryStatus = nil
            return
        }
        state.directoryStatus = fresh
    }

    /// Whether `status` is still the directory `known` described (device, inode, mode, owner),
    /// still linked, still a directory and not world-writable: only its times may differ, as
    /// they do whenever an entry is added or replaced.
    static func isSameSafeDirectory(_ status: FileStatus, as known: FileStatus) -> Bool {
        status.type == .directory && !status.isWorldWritable && status.linkCount > 0 && status.device == known.device
            && status.inode == known.inode && status.mode == known.mode && status.userID == known.userID
    }

    static func coarseMonotonicNanoseconds() -> UInt64 { Clocks.coarseMonotonicNanoseconds }

    private func record(_ error: SharedDefaultsError, in state: inout State, identity: FileIdentity?) -> SharedDefaultsError {
        state.lastError = error
        state.rejectedIdentity = identity
        return error
    }

    /// Opens (relative to `directory`), validates the file and hands its bytes to `decode`.
    /// Returns `nil` when it does not exist, else what `decode` made of it, the file's `fstat`
    /// and its still-open descriptor. System calls: `openat`, `fstat`, one
    /// `read` of the size `fstat` gave (plus one more only if the file grew meanwhile).
    private func readValidatedFile<Decoded>(
        in directory: SharedFileDescriptor, _ state: inout State, decode: ([UInt8]) throws(SharedDefaultsError) -> Decoded
    ) throws(SharedDefaultsError) -> (Decoded, FileStatus, SharedFileDescriptor)? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(fileName, relativeTo: directory.descriptor, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw .fileIsSymlink(path: path)
        } catch .noDevice {
            throw .notRegularFile(path: path, type: "socket or device")
        } catch {
            throw .system(path: path, operation: "open", errno: error)
        }
        do {
            let status: FileStatus
            do { status = try file.fstat() } catch { throw SharedDefaultsError.system(path: path, operation: "fstat", errno: error) }
            try validate(file: status)
            let bytes: [UInt8]
            do {
                bytes = try file.readAll(limit: options.maxFileSize, expectedSize: Int(status.size))
            } catch .exceedsLimit {
                throw SharedDefaultsError.tooLarge(path: path, size: Int64(options.maxFileSize) + 1, limit: options.maxFileSize)
            } catch .system(let errno) {
                throw SharedDefaultsError.system(path: path, operation: "read", errno: errno)
            }
            state.decodeCount += 1
            return (try decode(bytes), status, SharedFileDescriptor(file))
        } catch let error as SharedDefaultsError {
            throw error
        } catch {
            throw .system(path: path, operation: "read", errno: .ioError)
        }
    }

    /// Opens the preferences directory without following a symlink and checks what it is: a
    /// directory, owned by an allowed user (``Options/allowsDirectoryOwner(_:)``), not
    /// world-writable. Returns `nil` when it does not exist.
    func openValidatedDirectory() throws(SharedDefaultsError) -> (SharedFileDescriptor, FileStatus)? {
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(directoryPath, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw .directoryIsSymlink(path: directoryPath)
        } catch .notDirectory {
            // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR; tell the two apart.
            let type = (try? fileStatus(atPath: directoryPath, followSymlinks: false))?.type
            if type == .symlink { throw .directoryIsSymlink(path: directoryPath) }
            throw .notADirectory(path: directoryPath, type: type?.rawValue ?? "non-directory")
        } catch {
            throw .system(path: directoryPath, operation: "open", errno: error)
        }
        do {
            let status: FileStatus
            do { status = try directory.fstat() } catch { throw SharedDefaultsError.system(path: directoryPath, operation: "fstat", errno: error) }
            guard status.type == .directory else { throw SharedDefaultsError.notADirectory(path: directoryPath, type: status.type.rawValue) }
            guard options.allowsDirectoryOwner(status.userID) else {
                throw SharedDefaultsError.foreignOwner(path: directoryPath, owner: status.userID)
            }
            guard !status.isWorldWritable else { throw SharedDefaultsError.directoryWorldWritable(path: directoryPath) }
            return (SharedFileDescriptor(directory), status)
        } catch let error as SharedDefaultsError {
            throw error
        } catch {
            throw .system(path: directoryPath, operation: "fstat", errno: .ioError)
        }
    }

    /// The checks on the open file's `fstat`, in the order a reader should fail them.
    private func validate(file status: FileStatus) throws(SharedDefaultsError) {
        guard status.type == .regular else {
            if status.type == .symlink { throw .fileIsSymlink(path: path) }
            throw .notRegularFile(path: path, type: status.type.rawValue)
        }
        guard options.allowedOwners.contains(status.userID) else { throw .foreignOwner(path: path, owner: status.userID) }
        guard !status.isWorldWritable else { throw .fileWorldWritable(path: path) }
        guard status.size <= Int64(options.maxFileSize) else { throw .tooLarge(path: path, size: status.size, limit: options.maxFileSize) }
    }
}
