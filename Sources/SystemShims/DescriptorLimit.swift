import Glibc

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`): past the soft limit every
/// call that makes a descriptor fails with `EMFILE`.
package enum DescriptorLimit {
    /// The soft limit in force and the hard limit it may be raised to (`Int.max` for
    /// unlimited); `nil` when `getrlimit` fails.
    package static var current: (soft: Int, hard: Int)? {
        var limit = rlimit()
        guard system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (clamped(limit.rlim_cur), clamped(limit.rlim_max))
    }

    /// Raises the soft limit to `wanted`, or as near as the hard limit allows, if it is lower;
    /// returns the soft limit in force afterwards (`nil` when it cannot be read).
    @discardableResult
    package static func raiseSoftLimit(toAtLeast wanted: Int) -> Int? {
        var limit = rlimit()
        guard system_getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        guard clamped(limit.rlim_cur) < wanted else { return clamped(limit.rlim_cur) }
        var raised = limit
        raised.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        guard system_setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 else { return clamped(limit.rlim_cur) }
        return clamped(raised.rlim_cur)
    }

    /// How many descriptors the process has open (`/proc/self/fd`, less the one that lists
    /// it); `nil` when that cannot be read.
    package static var openCount: Int? {
        guard let entries = try? FileSystem.entries(ofDirectory: "/proc/self/fd") else { return nil }
        return max(0, entries.count - 1)
    }

    private static func clamped(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }
}
