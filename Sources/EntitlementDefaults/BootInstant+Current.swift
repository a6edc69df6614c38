import Entitlements
import SharedDefaults
import SystemShims

extension BootInstant {
    /// The kernel's boot clock now: the boot id from `/proc/sys/kernel/random/boot_id` (read
    /// once per process) and `clock_gettime(CLOCK_BOOTTIME)`; `nil` when the boot id cannot be
    /// read (no `/proc`), in which case readers fall back to flooring at `issuedAt` alone.
    public static func current() -> BootInstant? {
        guard let id = BootClock.bootID else { return nil }
        return BootInstant(bootID: id, nanosecondsSinceBoot: BootClock.nanosecondsSinceBoot)
    }
}
