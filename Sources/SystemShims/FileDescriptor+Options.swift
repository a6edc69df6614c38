import Glibc

extension FileDescriptor {
    /// Whether a descriptor is opened for reading, writing or both.
    package enum AccessMode: Sendable, Hashable {
        case readOnly
        case writeOnly
        case readWrite

        var rawValue: CInt {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// Flags for `open`/`openat`, with Swift names for the `O_*` constants.
    package struct OpenOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
        package var rawValue: CInt
        package init(rawValue: CInt) { self.rawValue = rawValue }

        /// `O_NOFOLLOW`: fail with `ELOOP` if the last path component is a symbolic link.
        package static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_CLOEXEC`: the descriptor is not inherited by `exec`ed programs.
        package static let closeOnExec = OpenOptions(rawValue: O_CLOEXEC)
        /// `O_CREAT`: create the file (with the given permissions) if it does not exist.
        package static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_EXCL` (with `.create`): fail with `EEXIST` if the name exists, even as a symlink.
        package static let exclusiveCreate = OpenOptions(rawValue: O_EXCL)
        /// `O_APPEND`: every write goes to the end of the file.
        package static let append = OpenOptions(rawValue: O_APPEND)
        /// `O_DIRECTORY`: fail with `ENOTDIR` unless the path is a directory.
        package static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NONBLOCK`: opening a FIFO does not wait for the other end; reads may fail with `EAGAIN`.
        package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_TRUNC`: truncate a regular file opened for writing to length zero.
        package static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_PATH`: a descriptor that only names the file (for `fstat`, and as the directory
        /// of `openat`/`fstatat`); opening needs no read permission on it. Glibc's module does not
        /// export the constant; its value is the same on every Linux architecture Swift runs on.
        package static let pathOnly = OpenOptions(rawValue: 0o10000000)

        package var description: String {
            let names: [(OpenOptions, String)] = [
                (.noFollow, "noFollow"), (.closeOnExec, "closeOnExec"), (.create, "create"),
                (.exclusiveCreate, "exclusiveCreate"), (.append, "append"), (.directory, "directory"),
                (.nonBlocking, "nonBlocking"), (.truncate, "truncate"), (.pathOnly, "pathOnly"),
            ]
            return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
        }
    }
}
