import Glibc

extension ProcessID {
    /// Starts the program at `executable` as a child of this process (`posix_spawn(3)`).
    ///
    /// The child starts with no signal blocked and every handler at its default
    /// (``withDefaultSignalSpawnAttributes(_:)``), whatever this process blocks or ignores.
    /// Its standard input is a duplicate of `standardInput`, or `/dev/null` when it is `nil`;
    /// its standard output and error are duplicates of the descriptors given. This process keeps
    /// ownership of every descriptor passed in: close your copy of a pipe's write end after
    /// this returns, or its read end never sees end of file. Every other descriptor this process
    /// opened close-on-exec (as ``FileDescriptor`` does by default) stays out of the child.
    ///
    /// - Parameters:
    ///   - executable: the program's path; `PATH` is not searched.
    ///   - arguments: the arguments after the program's name (which is `executable`).
    ///   - environment: the child's whole environment; `nil` passes this process's on.
    ///   - workingDirectory: the directory the child starts in; `nil` for this process's.
    /// - Returns: the child's ID. Reap it with ``waitForTermination(retryOnInterrupt:)``.
    /// - Throws: `ENOENT` or `EACCES` when the program cannot be run, `EAGAIN` at the process
    ///   limit, `ENOSYS` for a `workingDirectory` when the C library cannot change it (glibc
    ///   before 2.29), and the `errno` of `chdir` when the child cannot enter it.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        standardInput: CInt? = nil, standardOutput: borrowing FileDescriptor, standardError: borrowing FileDescriptor,
        workingDirectory: String? = nil
    ) throws(Errno) -> ProcessID {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, standardOutput.rawValue, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, standardError.rawValue, STDERR_FILENO)
        if let workingDirectory {
            let result = addChangeDirectoryFunction.map { $0(&actions, workingDirectory) } ?? ENOSYS
            guard result == 0 else { throw Errno(rawValue: result) }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var child: pid_t = 0
        let result = withDefaultSignalSpawnAttributes { attributes in
            envp.map { posix_spawn(&child, executable, &actions, &attributes, argv, $0) }
                ?? posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw Errno(rawValue: result) }
        return ProcessID(rawValue: child)
    }
}

/// `posix_spawn_file_actions_addchdir_np` (glibc 2.29), a GNU extension that Glibc's module map
/// does not export, resolved once.
private let addChangeDirectoryFunction = cLibraryFunction(
    named: "posix_spawn_file_actions_addchdir_np",
    as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> CInt).self)
