import Glibc

/// Path-based file operations (the ones that do not need an open descriptor).
package enum FileSystem {
    /// The status of the file at `path`: `stat(2)` when `followSymlinks`, else `lstat(2)` (which
    /// describes a symbolic link itself).
    package static func status(atPath path: String, followSymlinks: Bool = true) throws(Errno) -> FileStatus {
        var buffer = stat()
        if followSymlinks {
            _ = try valueOrErrno { stat(path, &buffer) }
        } else {
            _ = try valueOrErrno { Glibc.lstat(path, &buffer) }
        }
        return FileStatus(buffer)
    }

    /// Whether `path` names something (`stat(2)` succeeds, symbolic links followed), as
    /// `FileManager.fileExists(atPath:)` answers.
    package static func exists(atPath path: String) -> Bool {
        (try? status(atPath: path)) != nil
    }

    /// `path` as the directory that holds it and its last name, split at the last `/`: the
    /// directory is `.` when there is no slash and `/` for a name at the root. The path is
    /// taken as written (no trailing-slash or `..` handling): for paths the package builds.
    package static func directoryAndName(of path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = path[..<slash]
        return (directory.isEmpty ? "/" : String(directory), String(path[path.index(after: slash)...]))
    }

    /// Renames `source` to `destination`, atomically replacing an existing destination (`rename(2)`).
    package static func rename(_ source: String, to destination: String) throws(Errno) {
        _ = try valueOrErrno { Glibc.rename(source, destination) }
    }

    /// Removes the name `path` (`unlink(2)`); not for directories.
    package static func unlink(_ path: String) throws(Errno) {
        _ = try valueOrErrno { Glibc.unlink(path) }
    }

    /// Sets the permission bits of `path` exactly (`chmod(2)`, follows symlinks).
    package static func changeMode(_ path: String, _ permissions: UInt32) throws(Errno) {
        _ = try valueOrErrno { Glibc.chmod(path, mode_t(permissions)) }
    }

    /// Creates the one directory `path` with exactly `mode` (`mkdir`, then `chmod`, so the umask
    /// does not matter). Returns `false`, changing nothing, when something already exists at
    /// `path` (the caller checks what it is).
    @discardableResult
    package static func makeDirectory(path: String, mode: UInt32) throws(Errno) -> Bool {
        if Glibc.mkdir(path, mode_t(mode)) == 0 {
            try changeMode(path, mode)
            return true
        }
        let error = Errno.current
        guard error == .exists else { throw error }
        return false
    }

    /// Creates a symbolic link at `path` whose target is `target` (`symlink(2)`); fails with
    /// `EEXIST` when something is already there.
    package static func makeSymbolicLink(at path: String, to target: String) throws(Errno) {
        _ = try valueOrErrno { Glibc.symlink(target, path) }
    }

    /// Creates a new directory with a unique name, `prefix.` and six random characters, in
    /// `directory` (`mkdtemp(3)`): mode 0700, owned by this process's user. Removing it is the
    /// caller's job.
    ///
    /// - Returns: the new directory's path.
    /// - Throws: `ENOENT` or `EACCES` when `directory` is missing or not writable.
    package static func makeTemporaryDirectory(in directory: String, prefix: String) throws(Errno) -> String {
        var template = Array((directory + "/\(prefix).XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Errno.current }
        return String(cString: made)
    }

    /// Creates `path` and every missing parent. Each directory this call creates gets exactly
    /// `mode` (applied with `chmod` after `mkdir`, so the umask does not matter); directories that
    /// already exist are left as they are. A component that exists and is not a directory fails
    /// with `ENOTDIR`.
    package static func makeDirectories(path: String, mode: UInt32) throws(Errno) {
        guard !path.isEmpty else { throw .noSuchFileOrDirectory }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            // `String(component)` first: appending the `Substring` itself goes through the
            // standard library's unspecialized generic `append(contentsOf:)`.
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + String(component)
            if Glibc.mkdir(prefix, mode_t(mode)) == 0 {
                try changeMode(prefix, mode)
                continue
            }
            let error = Errno.current
            guard error == .exists else { throw error }
            guard try status(atPath: prefix).type == .directory else { throw .notDirectory }
        }
    }
}

extension FileSystem {
    /// The names in the directory `path` (`opendir`/`readdir`, one pass, no per-entry `stat`),
    /// in the order the file system gives them, without `.` and `..`.
    package static func entries(ofDirectory path: String) throws(Errno) -> [String] {
        guard let stream = opendir(path) else { throw Errno.current }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// `stat`/`lstat` as a free function; see ``FileSystem/status(atPath:followSymlinks:)``.
package func fileStatus(atPath path: String, followSymlinks: Bool = true) throws(Errno) -> FileStatus {
    try FileSystem.status(atPath: path, followSymlinks: followSymlinks)
}
