import SystemShims

/// The file descriptors the daemon needs, checked before it starts any thread: a daemon short of
/// them would fail part-way (a directory watch, a publish, the catalog) or crash in the runtime
/// (libdispatch traps when it cannot make its own descriptors), so it refuses to start instead,
/// with one line naming `EMFILE`.
enum DaemonDescriptors {
    /// Descriptors the daemon may hold at once besides its decoding reads: the standard streams,
    /// the runtime's (event loop, signals, timers), the lock, the journal, two directory watches
    /// (an inotify descriptor and a wake-up each), the container's suite (its directory, a lock
    /// and the pinned shared file), and the writes and reads of a
    /// publish, a state file, a refusal record and a catalog reload in progress, with room to spare.
    static let held = 48

    /// The fewest the daemon starts with: what it holds, and a few inbox files decoded at once.
    static let minimum = held + 16

    /// The runtime's own descriptors that may be open when the daemon looks (libdispatch's event
    /// loop, signal and timer descriptors, opened by threads as they start), which ``held``
    /// already counts; how many of them are open by then varies from start to start.
    static let runtime = 8

    /// Descriptors open at the start beyond the standard streams and the ``runtime``'s:
    /// inherited from whoever started the daemon, they count against the same limit.
    static let inherited = max(0, (DescriptorLimit.openCount ?? 3) - 3 - runtime)

    /// Makes sure `RLIMIT_NOFILE` allows ``minimum`` descriptors besides the ``inherited`` ones,
    /// raising the soft limit towards the hard one when it is lower; returns the soft limit in force.
    /// - Throws: ``BrokerError/insufficientResources(_:)`` when the hard limit is lower.
    static func reserve() throws(BrokerError) -> Int {
        let needed = minimum + inherited
        guard let limit = DescriptorLimit.raiseSoftLimit(toAtLeast: needed) else { return needed }
        guard limit >= needed else {
            let others = inherited == 0 ? "" : " (\(inherited) of them inherited open)"
            throw .insufficientResources(
                "needs at least \(needed) file descriptors\(others) but RLIMIT_NOFILE allows \(limit)"
                    + " (EMFILE, too many open files); raise it (ulimit -n, systemd LimitNOFILE=)")
        }
        return limit
    }

    /// How many inbox files may be open for decoding at once under the soft limit in force.
    static var decodingReads: Int {
        max(1, (DescriptorLimit.current?.soft ?? minimum) - held - inherited)
    }
}
