import Glibc

/// Runs a C call that returns -1 and sets `errno` on failure, retrying while it fails with `EINTR`
/// when `retryOnInterrupt` is true. The single EINTR loop of this module; `close` never uses it.
///
/// - Returns: the call's non-negative result.
/// - Throws: the `errno` of the failure.
@inline(__always)
package func valueOrErrno<I: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ call: () -> I
) throws(Errno) -> I {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        throw error
    }
}
