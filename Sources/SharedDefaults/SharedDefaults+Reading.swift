import PropertyList
import SystemShims

extension SharedDefaults {
    /// Brings `state` up to date with the file; see ``reload()``. Called with the mutex held.
    func refresh(_ state: inout State) throws(SharedDefaultsError) -> ReloadResult {
        let directoryStatus: FileStatus
        do {
            directoryStatus = try fileStatus(atPath: directoryPath, followSymlinks: false)
        } catch .noSuchFileOrDirectory {
            state.becomeMissing()
            return .missing
        } catch {
            throw record(.system(path: directoryPath, operation: "lstat", errno: error), in: &state, identity: nil)
        }
        var identity: FileIdentity?
        if directoryStatus.type == .directory {
            do {
                identity = FileIdentity(directory: directoryStatus, file: try fileStatus(atPath: path, followSymlinks: false))
            } catch .noSuchFileOrDirectory {
                state.becomeMissing()
                return .missing
            } catch {
                throw record(.system(path: path, operation: "lstat", errno: error), in: &state, identity: nil)
            }
            if identity == state.goodIdentity {
                state.lastError = nil
                return .unchanged
            }
            if identity == state.rejectedIdentity, let lastError = state.lastError { throw lastError }
        }
        do {
            guard let (dictionary, status, descriptor) = try readValidatedFile(&state) else {
                state.becomeMissing()
                return .missing
            }
            state.accept(dictionary, identity: FileIdentity(directory: directoryStatus, file: status), descriptor: descriptor)
            return .changed
        } catch {
            throw record(error, in: &state, identity: identity)
        }
    }

    private func record(_ error: SharedDefaultsError, in state: inout State, identity: FileIdentity?) -> SharedDefaultsError {
        state.lastError = error
        state.rejectedIdentity = identity
        return error
    }

    /// Opens, validates and decodes the file. Returns `nil` when it does not exist, else the
    /// dictionary, the file's `fstat` and its still-open descriptor (the caller owns it).
    private func readValidatedFile(
        _ state: inout State
    ) throws(SharedDefaultsError) -> ([String: PropertyListValue], FileStatus, FileDescriptor)? {
        let directory = try openValidatedDirectory()
        defer { try? directory.close() }

        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(fileName, relativeTo: directory, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
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
                bytes = try file.readAll(limit: options.maxFileSize)
            } catch .exceedsLimit {
                throw SharedDefaultsError.tooLarge(path: path, size: Int64(options.maxFileSize) + 1, limit: options.maxFileSize)
            } catch .system(let errno) {
                throw SharedDefaultsError.system(path: path, operation: "read", errno: errno)
            }
            state.decodeCount += 1
            let root: PropertyListValue
            do { root = try PropertyListCodec.decode(bytes) } catch { throw SharedDefaultsError.undecodable(path: path, reason: error.description) }
            guard case .dictionary(let dictionary) = root else {
                throw SharedDefaultsError.rootNotDictionary(path: path, type: root.kindName)
            }
            return (dictionary, status, file)
        } catch let error as SharedDefaultsError {
            try? file.close()
            throw error
        } catch {
            try? file.close()
            throw .system(path: path, operation: "read", errno: .ioError)
        }
    }

    /// Opens the preferences directory without following a symlink and checks what it is.
    /// The caller closes the returned descriptor.
    func openValidatedDirectory() throws(SharedDefaultsError) -> FileDescriptor {
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(directoryPath, .readOnly, options: [.directory, .noFollow, .closeOnExec])
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
            guard !status.isWorldWritable else { throw SharedDefaultsError.directoryWorldWritable(path: directoryPath) }
            return directory
        } catch let error as SharedDefaultsError {
            try? directory.close()
            throw error
        } catch {
            try? directory.close()
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

extension SharedDefaultsError {
    static func system(path: String, operation: String, errno: Errno) -> SharedDefaultsError {
        .system(path: path, operation: operation, errno: errno.rawValue, message: errno.description)
    }
}

extension PropertyListValue {
    /// The case's name, for messages (`array`, `string`).
    var kindName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real"
        case .boolean: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
