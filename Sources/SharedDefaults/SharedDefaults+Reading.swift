import PropertyList
import SystemShims

extension SharedDefaults {
    /// Brings `state` up to date with the file: the one refresh every getter, ``reload()``,
    /// ``reload(consume:)`` and every write's read-modify step go through. Called with the
    /// mutex held.
    ///
    /// In order, each step failing closed:
    /// 1. The directory: the kept ``ValidatedDirectory`` if it may still be used
    ///    (``ValidatedDirectory/recheck(at:changeExpected:)``), else the path opened and checked again
    ///    (``ValidatedDirectory/open(_:options:at:)``). No directory: ``ReloadResult/missing``.
    /// 2. The file's `fstatat(directory, name, AT_SYMLINK_NOFOLLOW)`, turned into a
    ///    ``ReadCache/Key``; ``ReadCache/answer(for:)`` says whether that file was read
    ///    (``ReloadResult/unchanged``) or refused before (the same error again, unread).
    /// 3. Only for another file: `openat` relative to the directory, its checks
    ///    (``validate(file:)``), one read, and `decode`.
    /// When nothing changed this costs two system calls and no path walk: `fstat` of the kept
    /// directory and the `fstatat` of step 2.
    ///
    /// A problem is recorded in ``ReadCache/lastError`` and thrown; the last good contents stay.
    ///
    /// A missing file leaves this instance holding nothing in its directory: the pinned file
    /// and the directory descriptor are both let go (unless the caller holds the directory, see
    /// `held`). Linux sends a directory's `IN_DELETE_SELF`/`IN_IGNORED` only once the last
    /// reference to it is gone, so a reader that kept the emptied directory open while it was
    /// removed would keep every watcher of it (a follower, itself included) from learning that
    /// it is gone and re-arming on the recreated one. The next call opens the directory through
    /// its path again.
    ///
    /// - Parameters:
    ///   - held: a directory the caller got from ``currentDirectory(_:holding:changeExpected:)`` earlier in the
    ///     same operation (a writer, under its file lock). It is used without a system call if
    ///     the state still holds exactly that validation, and it is kept when the file is
    ///     missing (the caller is about to create the file in it).
    ///   - decode: turns a changed, validated file's bytes into the dictionary the getters serve
    ///     from then on; called only when the result is ``ReloadResult/changed``. A
    ///     `SharedDefaultsError` it throws refuses the file like any other problem.
    func refresh(
        _ state: inout State, holding held: ValidatedDirectory? = nil,
        decode: ([UInt8]) throws(SharedDefaultsError) -> PropertyListDictionary
    ) throws(SharedDefaultsError) -> ReloadResult {
        do {
            guard try validateDirectory(&state, holding: held, changeExpected: false) else {
                state.cache.becomeMissing()
                return .missing
            }
        } catch {
            throw state.cache.refuse(error, key: nil)
        }
        // From here `state.directory` is the validated directory; it is read in place, not
        // copied, on the path every unchanged refresh takes.
        guard let key = try lookUpKey(&state, letGoOfDirectory: held == nil) else { return .missing }
        switch state.cache.answer(for: key) {
        case .unchanged: return .unchanged
        case .refusedAgain(let error): throw error
        case .read: break
        }
        // Only the directory's status is kept across the read (which takes `state` inout): a
        // copy of the whole `ValidatedDirectory` would retain and release its descriptors.
        let directoryStatus = state.directory!.status
        do {
            guard let file = try openFile(in: state.directory!) else { return fileIsMissing(&state, letGoOfDirectory: held == nil) }
            let status = file.status
            let (contents, descriptor) = try readValidatedFile(file, &state, decode: decode)
            state.cache.accept(contents, key: ReadCache.Key(directory: directoryStatus, file: status), pinning: descriptor)
            return .changed
        } catch {
            throw state.cache.refuse(error, key: key)
        }
    }

    /// Step 2: the key of whatever the file's name is now, by `fstatat(directory, name,
    /// AT_SYMLINK_NOFOLLOW)`; `nil` (the state then records a missing file) when there is none.
    private func lookUpKey(_ state: inout State, letGoOfDirectory: Bool) throws(SharedDefaultsError) -> ReadCache.Key? {
        do {
            return ReadCache.Key(directory: state.directory!.status, file: try state.directory!.descriptor.status(ofEntry: fileName))
        } catch .noSuchFileOrDirectory {
            _ = fileIsMissing(&state, letGoOfDirectory: letGoOfDirectory)
            return nil
        } catch {
            throw state.cache.refuse(.system(path: path, operation: "fstatat", errno: error), key: nil)
        }
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
    package func reload(
        consume: ([UInt8]) throws(SharedDefaultsError) -> Void
    ) throws(SharedDefaultsError) -> ReloadResult {
        try state.withLock { state throws(SharedDefaultsError) in
            try refresh(&state) { bytes throws(SharedDefaultsError) in
                try consume(bytes)
                return PropertyListDictionary()
            }
        }
    }

    /// The file's root dictionary, or why the bytes are not one (``SharedDefaultsError/undecodable(path:reason:)``,
    /// ``SharedDefaultsError/rootNotDictionary(path:type:)``): the `decode` of every refresh
    /// whose caller serves the suite's dictionary.
    func decodeDictionary(_ bytes: [UInt8]) throws(SharedDefaultsError) -> PropertyListDictionary {
        let root: PropertyListValue
        do { root = try PropertyListCodec.decode(bytes) } catch { throw .undecodable(path: path, reason: error.description) }
        guard case .dictionary(let dictionary) = root else { throw .rootNotDictionary(path: path, type: root.kindInWords) }
        return dictionary
    }

    /// The validated preferences directory, or `nil` when it does not exist (then the state
    /// holds none either); see ``validateDirectory(_:holding:changeExpected:)``.
    func currentDirectory(
        _ state: inout State, holding held: ValidatedDirectory? = nil, changeExpected: Bool = false
    ) throws(SharedDefaultsError) -> ValidatedDirectory? {
        try validateDirectory(&state, holding: held, changeExpected: changeExpected) ? state.directory : nil
    }

    /// Makes `state.directory` the validated preferences directory: `held` when the state still
    /// holds exactly that validation (no system call), else the kept one when
    /// ``ValidatedDirectory/recheck(at:changeExpected:)`` allows it (`changeExpected`: entries
    /// in it most likely changed, so it is looked up by name at once), else the path opened and
    /// checked again. A refused directory throws and is not adopted.
    /// - Returns: `false` when the directory does not exist (the state then holds none).
    private func validateDirectory(
        _ state: inout State, holding held: ValidatedDirectory?, changeExpected: Bool
    ) throws(SharedDefaultsError) -> Bool {
        if let held, state.directory?.isSameValidation(as: held) == true { return true }
        let now = Clocks.coarseMonotonicNanoseconds
        if state.directory?.recheck(at: now, changeExpected: changeExpected) == true { return true }
        state.directory = try ValidatedDirectory.open(directoryPath, options: options, at: now)
        return state.directory != nil
    }

    /// The file is gone: serve an empty dictionary and, unless the caller holds the directory,
    /// let go of it too (see ``refresh(_:holding:decode:)``).
    private func fileIsMissing(_ state: inout State, letGoOfDirectory: Bool) -> ReloadResult {
        state.cache.becomeMissing()
        if letGoOfDirectory { state.directory = nil }
        return .missing
    }

    /// How the suite file is opened for reading: never through a symlink, never waiting on a
    /// FIFO. Built once: a literal of this option set, a type of another module, is built on
    /// every use through the standard library's generic initializer (a few percent of a
    /// reader's CPU per wake-up).
    private static let suiteFileOpenOptions: FileDescriptor.OpenOptions = [.noFollow, .nonBlocking, .closeOnExec]

    /// The suite file, open, and the `fstat` of the open file.
    struct OpenedFile: ~Copyable {
        var descriptor: FileDescriptor
        var status: FileStatus
    }

    /// Opens the file relative to `directory` and takes its `fstat` (`openat`, `fstat`);
    /// `nil` when it does not exist. Nothing is judged yet.
    private func openFile(in directory: ValidatedDirectory) throws(SharedDefaultsError) -> OpenedFile? {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(fileName, relativeTo: directory.descriptor, .readOnly, options: Self.suiteFileOpenOptions)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw .fileIsSymlink(path: path)
        } catch .noDevice {
            throw .notRegularFile(path: path, type: "socket or device")
        } catch {
            throw .system(path: path, operation: "open", errno: error)
        }
        let status: FileStatus
        do throws(Errno) { status = try file.fstat() } catch { throw .system(path: path, operation: "fstat", errno: error) }
        return OpenedFile(descriptor: file, status: status)
    }

    /// Validates the open file and hands its bytes to `decode`. Returns what `decode` made of
    /// it and the still-open descriptor. System calls: one `read` of the size `fstat` gave
    /// (plus one more only if the file grew meanwhile).
    private func readValidatedFile(
        _ opened: consuming OpenedFile, _ state: inout State, decode: ([UInt8]) throws(SharedDefaultsError) -> PropertyListDictionary
    ) throws(SharedDefaultsError) -> (PropertyListDictionary, SharedFileDescriptor) {
        let status = opened.status
        let file = opened.descriptor
        try validate(file: status, in: &state.directory!)
        let bytes: [UInt8]
        do throws(ReadAllError) {
            bytes = try file.readAll(limit: options.maxFileSize, expectedSize: Int(status.size))
        } catch {
            switch error {
            case .exceedsLimit: throw .tooLarge(path: path, size: Int64(options.maxFileSize) + 1, limit: options.maxFileSize)
            case .system(let errno): throw .system(path: path, operation: "read", errno: errno)
            }
        }
        return (try decode(bytes), SharedFileDescriptor(file))
    }

    /// The checks on the open file's `fstat`, in the order a reader should fail them; the owner
    /// is judged by the validated `directory` it is in (``ValidatedDirectory/trusts(owner:options:)``).
    private func validate(file status: FileStatus, in directory: inout ValidatedDirectory) throws(SharedDefaultsError) {
        // Matched, not compared with `==`: `FileType`'s `==` is another module's, called through
        // its `Equatable` witness on every read.
        switch status.type {
        case .regular: break
        case .symlink: throw .fileIsSymlink(path: path)
        default: throw .notRegularFile(path: path, type: status.type.rawValue)
        }
        guard directory.trusts(owner: status.userID, options: options) else { throw .foreignOwner(path: path, owner: status.userID) }
        guard !status.isWorldWritable else { throw .fileWorldWritable(path: path) }
        guard status.size <= Int64(options.maxFileSize) else { throw .tooLarge(path: path, size: status.size, limit: options.maxFileSize) }
    }
}
