#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A reading of a clock nobody can wind back: which boot of the machine (the kernel's boot id)
/// and how long after that boot started (`CLOCK_BOOTTIME`, which keeps counting through
/// suspend). Pure value; the caller reads the kernel (see `BootInstant.current()` in
/// `EntitlementDefaults` on Linux).
public struct BootInstant: Sendable, Hashable {
    /// The boot's id as the kernel gives it (`/proc/sys/kernel/random/boot_id`): at most
    /// ``maximumBootIDLength`` printable ASCII characters, never empty.
    public let bootID: String
    /// Nanoseconds since that boot started, ≥ 0.
    public let nanosecondsSinceBoot: Int64

    /// The longest boot id accepted, in bytes; the kernel's is a 36-character UUID.
    public static let maximumBootIDLength = 64

    /// `nil` when `bootID` is empty, longer than ``maximumBootIDLength`` or not printable ASCII,
    /// or `nanosecondsSinceBoot` is negative (what a snapshot reader refuses).
    public init?(bootID: String, nanosecondsSinceBoot: Int64) {
        guard Self.isValid(bootID: bootID), nanosecondsSinceBoot >= 0 else { return nil }
        self.bootID = bootID
        self.nanosecondsSinceBoot = nanosecondsSinceBoot
    }

    static func isValid(bootID: String) -> Bool {
        let utf8 = bootID.utf8
        return !utf8.isEmpty && utf8.count <= maximumBootIDLength && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// The earliest instant it can be now, given that it was at least `issuedAt` when the boot
    /// clock read `issued`, and it reads `current` now: `issuedAt` plus the boot time elapsed
    /// since, when both readings are of the same boot; `issuedAt` alone otherwise (another boot,
    /// no reading, or a `current` earlier than `issued`, which no real boot clock gives).
    ///
    /// This is the one rule behind every "never earlier than" of a snapshot: the wall clock can
    /// be set back, the boot clock cannot.
    public static func floor(issuedAt: Date, issued: BootInstant?, current: BootInstant?) -> Date {
        issuedAt.addingTimeInterval(elapsed(from: issued, to: current) ?? 0)
    }

    /// The seconds the boot clock counted from `earlier` to `later`; `nil` unless both are
    /// readings of the same boot and `later` is not the earlier one.
    package static func elapsed(from earlier: BootInstant?, to later: BootInstant?) -> TimeInterval? {
        guard let earlier, let later, earlier.bootID == later.bootID, later.nanosecondsSinceBoot >= earlier.nanosecondsSinceBoot else {
            return nil
        }
        return Double(later.nanosecondsSinceBoot - earlier.nanosecondsSinceBoot) / 1_000_000_000
    }
}
