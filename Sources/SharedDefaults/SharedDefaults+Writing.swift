import FoundationEssentials
import PropertyList
import SystemShims

extension SharedDefaults {
    /// Changes the suite in one locked read-modify-write and one atomic replace.
    ///
    /// Under the exclusive lock the current file is re-read with the reader's validation, so
    /// keys other processes wrote are kept. A file refused for safety (symlink, foreign owner,
    /// not a regular file, world-writable file or directory) or for size makes this throw and
    /// nothing is written. A safe file whose contents merely do not decode, or whose root is not
    /// a dictionary, is **replaced**: `body` starts from an empty dictionary. A missing
    /// `Library/Preferences` is created (mode 0750, parents too) and the file gets mode 0640,
    /// whatever the umask.
    ///
    /// - Parameter body: edits the dictionary; runs with the file lock held, so it must be quick
    ///   and must not write to the same suite (that would wait for the lock forever); getters are
    ///   fine. If it throws, nothing is written and the error is wrapped in
    ///   ``SharedDefaultsError/updateFailed(path:reason:)``.
    /// - Returns: what `body` returned.
    @discardableResult
    public func update<T>(_ body: (inout PropertyListDictionary) throws -> T) throws(SharedDefaultsError) -> T {
        try update(beforeReplacing: {}, body)
    }

    /// ``update(_:)`` that runs `beforeReplacing` once the new file is written (and fsynced when
    /// durable), just before it is renamed into place. If it throws, nothing is replaced and
    /// the error is ``SharedDefaultsError/system(path:operation:errno:)`` with its `errno`.
    @discardableResult
    package func update<T>(
        beforeReplacing: () throws(Errno) -> Void, _ body: (inout PropertyListDictionary) throws -> T
    ) throws(SharedDefaultsError) -> T {
        try writer.withLock { writer throws(SharedDefaultsError) -> T in
            // System calls of one update, each there once: `fstatat` of the kept directory's name
            // (does the path still lead to it, with its mode and owner as validated? its times
            // changed, by this instance's last rename if by nothing else, so it is looked up by
            // name at once; checked here and trusted for the rest of this update, which holds the
            // lock), `flock`, `fstatat` of the suite file (unchanged since this instance's last
            // write?), and the atomic replace.
            let (lock, directory) = try lockFile(&writer)
            do throws(Errno) { try lock.lock(.exclusive) } catch { throw .system(path: lockFilePath, operation: "flock", errno: error) }
            defer { try? lock.unlock() }

            var dictionary = try currentContentsForWriting(in: directory)
            let result: T
            do { result = try body(&dictionary) } catch { throw .updateFailed(path: path, reason: String(describing: error)) }

            let bytes: [UInt8]
            do throws(PropertyListError) { bytes = try PropertyListCodec.encode(.dictionary(dictionary), format: .binary) } catch {
                throw .encodingFailed(path: path, reason: error.description)
            }
            guard bytes.count <= options.maxFileSize else {
                throw .tooLarge(path: path, size: Int64(bytes.count), limit: options.maxFileSize)
            }
            // Assigning lets go of the file the previous write replaced: readers have read past it.
            writer.replacedFile = try replaceFile(with: bytes, contents: dictionary, in: directory, beforeRename: beforeReplacing)
            return result
        }
    }

    /// Stores `value` under `key`, or removes the key when `value` is `nil`.
    public func set(_ value: PropertyListValue?, forKey key: String) throws(SharedDefaultsError) {
        try update { dictionary in
            dictionary[key] = value
        }
    }

    /// Stores a boolean.
    public func set(_ value: Bool, forKey key: String) throws(SharedDefaultsError) { try set(.boolean(value), forKey: key) }
    /// Stores an integer (as a 64-bit property-list integer).
    public func set(_ value: Int, forKey key: String) throws(SharedDefaultsError) { try set(.integer(Int64(value)), forKey: key) }
    /// Stores a floating-point number.
    public func set(_ value: Double, forKey key: String) throws(SharedDefaultsError) { try set(.real(value), forKey: key) }
    /// Stores a string.
    public func set(_ value: String, forKey key: String) throws(SharedDefaultsError) { try set(.string(value), forKey: key) }
    /// Stores a date (kept to the precision of a binary property list, about a microsecond).
    public func set(_ value: Date, forKey key: String) throws(SharedDefaultsError) { try set(.date(value), forKey: key) }

    /// Removes `key` from the file. Registered defaults are not affected.
    public func removeObject(forKey key: String) throws(SharedDefaultsError) { try set(nil, forKey: key) }

    /// The lock file of the current preferences directory, opened relative to it (creating the
    /// directory, mode 0750 with parents, if it is missing) and kept open while the directory
    /// stays the same one (its staging subdirectory checked or made at the same time), with the
    /// directory as validated for this update. Called with the writer mutex held.
    private func lockFile(_ writer: inout Writer) throws(SharedDefaultsError) -> (FileLock, ValidatedDirectory) {
        for attempt in 0..<2 {
            let locked = try state.withLock { state throws(SharedDefaultsError) -> (FileLock, ValidatedDirectory)? in
                guard let directory = try currentDirectory(&state, changeExpected: true) else { return nil }
                let key = Writer.DirectoryKey(device: directory.status.device, inode: directory.status.inode)
                if let lock = writer.lock, writer.lockDirectory == key { return (lock, directory) }
                let lock: FileLock
                do throws(Errno) { lock = try FileLock(name: lockFileName, relativeTo: directory.descriptor, permissions: 0o640) } catch {
                    throw .system(path: lockFilePath, operation: "open lock file", errno: error)
                }
                // Replaces stage their temporary file in a subdirectory, so watchers of this
                // directory wake once per publish; what is there already is checked once here.
                do throws(Errno) { try AtomicFile.Staging.prepare(in: directory.descriptor) } catch {
                    throw .system(path: directoryPath + "/" + AtomicFile.Staging.name, operation: "prepare staging directory", errno: error)
                }
                writer.lock = lock
                writer.lockDirectory = key
                return (lock, directory)
            }
            if let locked { return locked }
            guard attempt == 0 else { break }
            do { try FileSystem.makeDirectories(path: directoryPath, mode: 0o750) } catch {
                throw .system(path: directoryPath, operation: "create directory", errno: error)
            }
        }
        throw .system(path: directoryPath, operation: "open", errno: .noSuchFileOrDirectory)
    }

    /// Atomically replaces the file in the validated directory and remembers what was written
    /// (the dictionary, the new file's identity after the rename, its descriptor), so the next
    /// read or write by this instance finds it unchanged and decodes nothing.
    /// - Returns: the descriptor of the file the cache held until now (the one just replaced,
    ///   usually), for the caller to keep (see ``Writer/replacedFile``).
    private func replaceFile(
        with bytes: [UInt8], contents: PropertyListDictionary, in checked: ValidatedDirectory,
        beforeRename: () throws(Errno) -> Void
    ) throws(SharedDefaultsError) -> SharedFileDescriptor? {
        try state.withLock { state throws(SharedDefaultsError) in
            guard let directory = try currentDirectory(&state, holding: checked) else {
                throw .system(path: directoryPath, operation: "open", errno: .noSuchFileOrDirectory)
            }
            let replaced: AtomicFile.Replaced
            do throws(Errno) {
                replaced = try AtomicFile.replace(
                    in: directory.descriptor, name: fileName, bytes: bytes, mode: 0o640, durable: options.durable, staged: true,
                    beforeRename: beforeRename)
            } catch {
                throw .system(path: path, operation: "atomic replace", errno: error)
            }
            // Whatever happened to the directory since it was checked (renamed away, say) is seen
            // by the next look, which asks its name again (`recheck`). The key holds no directory
            // times, so the file is known as written either way.
            let key = ReadCache.Key(directory: directory.status, file: replaced.status)
            return state.cache.accept(contents, key: key, pinning: SharedFileDescriptor(replaced.takeDescriptor()))
        }
    }

    /// The dictionary a write starts from: the validated current file, empty when it is missing
    /// or merely undecodable. Called with the file lock held.
    private func currentContentsForWriting(in checked: ValidatedDirectory) throws(SharedDefaultsError) -> PropertyListDictionary {
        try state.withLock { state throws(SharedDefaultsError) in
            do throws(SharedDefaultsError) {
                let result = try refresh(&state, holding: checked, decode: decodeDictionary)
                return result == .missing ? [:] : state.cache.contents
            } catch where error.isContentRejection {
                return [:]
            }
        }
    }
}
