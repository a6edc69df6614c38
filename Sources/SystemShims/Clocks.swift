import Glibc

/// The kernel's clocks, read with `clock_gettime`, in nanoseconds.
package enum Clocks {
    /// `CLOCK_MONOTONIC_COARSE`: never goes back, ticks at the scheduler's rate (a few
    /// milliseconds) and costs no more than a memory read. For "was this checked recently".
    package static var coarseMonotonicNanoseconds: UInt64 { nanoseconds(CLOCK_MONOTONIC_COARSE) }

    /// `CLOCK_MONOTONIC`: never goes back; does not count time suspended.
    package static var monotonicNanoseconds: UInt64 { nanoseconds(CLOCK_MONOTONIC) }

    /// `CLOCK_REALTIME`: the wall clock since 1970, which anyone with the right may set back.
    package static var realtimeNanoseconds: UInt64 { nanoseconds(CLOCK_REALTIME) }

    /// Blocks the calling thread for `nanoseconds` (`nanosleep`, resumed after a signal).
    package static func sleep(nanoseconds: UInt64) {
        var remaining = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var left = timespec()
        while nanosleep(&remaining, &left) == -1 && errno == EINTR { remaining = left }
    }

    @inline(__always)
    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
