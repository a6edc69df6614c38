import Glibc

extension FileDescriptor {
    /// The two ends of a pipe, each owned by this value until it is taken out (`pipe.readEnd`
    /// consumes that end; the other stays owned and closes with the rest of the value). Frozen,
    /// so that code in other modules may take one end and leave the other.
    @frozen package struct Pipe: ~Copyable, Sendable {
        /// The end to read what was written to ``writeEnd``; end of file once every copy of
        /// the write end is closed.
        package var readEnd: FileDescriptor
        /// The end to write to.
        package var writeEnd: FileDescriptor
    }

    /// Opens a pipe (`pipe2(2)` with `O_CLOEXEC`). Both ends are close-on-exec from birth: a
    /// program started at the same moment by another thread cannot inherit the write end and so
    /// keep the read end from ever seeing end of file. Hand an end to a child process through
    /// ``ProcessID/spawn(_:arguments:environment:standardInput:standardOutput:standardError:workingDirectory:)``,
    /// which duplicates it.
    ///
    /// - Returns: both ends, owned by the caller.
    /// - Throws: `EMFILE` or `ENFILE` at the descriptor limits; `ENOSYS` when the C library
    ///   has no `pipe2`.
    /// With `nonBlocking`, both ends are `O_NONBLOCK`: a write to a full pipe fails with
    /// `EAGAIN` instead of waiting (a wake-up pipe, where one byte waiting is enough).
    package static func pipe(nonBlocking: Bool = false) throws(Errno) -> Pipe {
        var ends: [CInt] = [-1, -1]
        let flags = O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)
        _ = try ends.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(Errno) in try valueOrErrno { system_pipe2(buffer.baseAddress!, flags) } }
        }.get()
        return Pipe(readEnd: FileDescriptor(adopting: ends[0]), writeEnd: FileDescriptor(adopting: ends[1]))
    }
}
