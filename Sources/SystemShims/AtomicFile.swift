#if canImport(Glibc)
import Glibc
#else
#error("Unsupported Platform")
#endif

/// Replacing a file's contents so that readers see the old file or the new one, never a mix.
package enum AtomicFile {
    /// Writes `bytes` to `directory/name` by rename.
    ///
    /// A temporary file `.<name>.tmp-<pid>-<random>` is created in the same directory
    /// (`O_CREAT|O_EXCL|O_CLOEXEC|O_WRONLY|O_NOFOLLOW`, then `fchmod` to `mode` whatever the
    /// umask), filled, `fsync`ed when `durable`, renamed over `name` (`renameat` through a
    /// descriptor of the directory), and then the directory is `fsync`ed when `durable`, so the
    /// rename itself survives a crash. On any failure the temporary file is unlinked and the
    /// destination is untouched. Without `durable` the replace is still atomic for readers but a
    /// power loss may lose it.
    ///
    /// - Throws: the `errno` of the first failing call.
    package static func replace(
        directory: String, name: String, bytes: [UInt8], mode: UInt32, durable: Bool
    ) throws(Errno) {
        let directoryFD = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
        try directoryFD.closeAfter { () throws(Errno) in
            let temporaryName = ".\(name).tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let file = try FileDescriptor.open(
                temporaryName, relativeTo: directoryFD, .writeOnly,
                options: [.create, .exclusiveCreate, .closeOnExec, .noFollow], permissions: mode)
            do throws(Errno) {
                try file.closeAfter { () throws(Errno) in
                    try file.changeMode(mode)
                    try file.writeAll(bytes)
                    if durable { try file.fsync() }
                }
                _ = try valueOrErrno {
                    renameat(directoryFD.rawValue, temporaryName, directoryFD.rawValue, name)
                }
            } catch {
                _ = unlinkat(directoryFD.rawValue, temporaryName, 0)
                throw error
            }
            if durable { try directoryFD.fsync() }
        }
    }
}
