// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// `CLOCK_MONOTONIC` in nanoseconds. The kernel keeps one monotonic clock for the whole system,
/// so values read in different processes can be subtracted from each other.
enum MonotonicClock {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// Keeps a computed value alive so the optimizer cannot delete the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// `pipe()` with both ends close-on-exec (Glibc's `pipe2` is not visible from Swift here).
func makePipe() throws(BenchmarkError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw .system("pipe") }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
}
