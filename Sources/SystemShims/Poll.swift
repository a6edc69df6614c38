import Glibc

/// `poll(2)` on `entries` for at most `timeoutMilliseconds` (-1: no timeout), the one way the
/// package waits on several descriptors. `EINTR` is retried with the full timeout. `EINVAL` is
/// the kernel saying the entries outnumber `RLIMIT_NOFILE` (poll's only other `EINVAL` is a
/// count past the kernel's own maximum, which two entries never reach): a passing shortage of
/// descriptors, like `EMFILE`, not a bad call. It is waited out in steps of
/// ``descriptorShortageRetryMilliseconds`` (a `poll` of no entries, which needs no descriptor),
/// counted against the timeout, so a watcher outlives a moment of too few descriptors instead
/// of failing (and falling back to timers that need descriptors of their own).
package func pollEntries(_ entries: UnsafeMutableBufferPointer<pollfd>, timeoutMilliseconds: CInt) throws(Errno) {
    var remaining = timeoutMilliseconds
    while true {
        do {
            _ = try valueOrErrno { system_poll(entries.baseAddress!, nfds_t(entries.count), remaining) }
            return
        } catch .invalidArgument {
            if remaining == 0 { return }
            let step = remaining < 0 ? descriptorShortageRetryMilliseconds : min(remaining, descriptorShortageRetryMilliseconds)
            _ = Glibc.poll(nil, 0, step)  // a sleep: no entries, past the fault seam on purpose
            if remaining > 0 { remaining -= step }
            if remaining == 0 { return }
        }
    }
}

/// How long ``pollEntries(_:timeoutMilliseconds:)`` waits before it polls again when the
/// descriptor limit is below its entries' count.
package let descriptorShortageRetryMilliseconds: CInt = 100
