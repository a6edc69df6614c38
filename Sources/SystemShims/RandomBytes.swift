import Glibc

/// Random bytes from the kernel (`getrandom(2)`, blocking until its pool is initialized):
/// the only source of keys and nonces in the package.
package enum RandomBytes {
    /// `count` fresh random bytes. A short answer (a signal, or more than 256 bytes asked) is
    /// completed by further calls; `EINTR` is retried.
    /// - Throws: the `errno` of `getrandom` (`ENOSYS` on a kernel without it).
    package static func make(count: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let start = filled
            let got = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try valueOrErrno { system_getrandom(buffer.baseAddress! + start, count - start, 0) } }
            }
            filled += try got.get()
        }
        return bytes
    }
}
