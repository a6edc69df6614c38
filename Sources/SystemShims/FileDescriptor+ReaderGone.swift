import Glibc

extension FileDescriptor {
    /// Whether `rawValue` (a descriptor this process has open) is a pipe or FIFO: the one kind of
    /// output whose reader's departure `poll(2)` reports before a write fails.
    package static func isPipe(_ rawValue: CInt) -> Bool {
        (try? withUnowned(rawValue) { (descriptor: borrowing FileDescriptor) throws(Errno) in try descriptor.fstat() })?.type == .fifo
    }

    /// Blocks in `poll(2)` until the pipe `output` (written by this process) has no reader left,
    /// the state in which a write fails with `EPIPE` (`POLLERR`; `POLLHUP` and `POLLNVAL` count
    /// too), or until the event counter `wake` is signalled. Asks for no event on `output`, so
    /// neither room in the pipe nor input on a descriptor also open for reading wakes it.
    /// `EINTR` is retried, and a descriptor limit below two waited out (``pollEntries(_:timeoutMilliseconds:)``).
    ///
    /// - Returns: whether `output` has no reader (`false`: woken by `wake`).
    package static func waitUntilReaderGone(_ output: CInt, orSignalOn wake: CInt) throws(Errno) -> Bool {
        var requests = (pollfd(fd: output, events: 0, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        try withUnsafeMutableBytes(of: &requests) { bytes throws(Errno) in
            try pollEntries(bytes.bindMemory(to: pollfd.self), timeoutMilliseconds: -1)
        }
        return requests.0.revents != 0
    }
}
