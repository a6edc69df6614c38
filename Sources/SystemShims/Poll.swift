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

/// One descriptor to wait on with ``pollDescriptors(_:timeoutMilliseconds:)``, for callers that
/// do not import Glibc.
package struct PollRequest: Sendable {
    package var descriptor: CInt
    package var read: Bool
    package var write: Bool

    package init(descriptor: CInt, read: Bool, write: Bool) {
        self.descriptor = descriptor
        self.read = read
        self.write = write
    }
}

/// What ``pollDescriptors(_:timeoutMilliseconds:)`` found for one request.
package struct PollResult: Sendable {
    /// Data (or end of file, or a connection waiting on a listener) is there to read.
    package var readable: Bool
    /// Bytes can be written (or a connection attempt finished).
    package var writable: Bool
    /// The peer hung up or the descriptor has an error (`POLLHUP`, `POLLERR`, `POLLNVAL`).
    package var failed: Bool
}

/// Waits until one of `requests` is ready or `timeoutMilliseconds` passed, through
/// ``pollEntries(_:timeoutMilliseconds:)``; one result per request, in order.
package func pollDescriptors(_ requests: [PollRequest], timeoutMilliseconds: CInt) throws(Errno) -> [PollResult] {
    var entries = requests.map { request in
        pollfd(fd: request.descriptor, events: Int16((request.read ? POLLIN : 0) | (request.write ? POLLOUT : 0)), revents: 0)
    }
    let outcome = entries.withUnsafeMutableBufferPointer { buffer in
        Result { () throws(Errno) in try pollEntries(buffer, timeoutMilliseconds: timeoutMilliseconds) }
    }
    try outcome.get()
    return entries.map { entry in
        PollResult(
            readable: entry.revents & Int16(POLLIN) != 0, writable: entry.revents & Int16(POLLOUT) != 0,
            failed: entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0)
    }
}
