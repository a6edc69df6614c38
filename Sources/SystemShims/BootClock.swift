import Glibc
import Synchronization

/// The kernel's boot clock: which boot this is, and how long ago it started. Neither can be
/// wound back by setting the wall clock (`CLOCK_BOOTTIME` only moves forward, and counts time
/// spent suspended).
package enum BootClock {
    /// The kernel's random id of the current boot (`/proc/sys/kernel/random/boot_id`, a UUID in
    /// lower-case text), read once per process; `nil` when it cannot be read (no `/proc`).
    package static var bootID: String? { cached.withLock { $0.bootID } }

    /// Nanoseconds since this boot started, as the machine counts them: `CLOCK_BOOTTIME` less
    /// the boot-time offset of this process's time namespace (`/proc/self/timens_offsets`,
    /// read once per process), so a process started in a time namespace that shifts the boot
    /// clock (`unshare --time --boottime=-N`, open to unprivileged users where user namespaces
    /// are) reads the same clock as everyone else.
    package static var nanosecondsSinceBoot: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return (Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)) &- cached.withLock { $0.namespaceOffset }
    }

    private struct Readings {
        var bootID: String?
        var namespaceOffset: Int64
    }

    private static let cached = Mutex(Readings(bootID: readBootID(), namespaceOffset: readNamespaceOffset()))

    private static func readBootID() -> String? {
        guard let text = readSmallFile("/proc/sys/kernel/random/boot_id") else { return nil }
        let id = text.split(separator: "\n").first.map(String.init) ?? ""
        return id.isEmpty ? nil : id
    }

    /// The `boottime <seconds> <nanoseconds>` line of `/proc/self/timens_offsets`, in
    /// nanoseconds; 0 without time namespaces (the file is absent) or when it does not parse.
    private static func readNamespaceOffset() -> Int64 {
        guard let text = readSmallFile("/proc/self/timens_offsets") else { return 0 }
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3, fields[0] == "boottime", let seconds = Int64(fields[1]), let nanoseconds = Int64(fields[2]),
                abs(seconds) < 1 << 40
            else { continue }
            return seconds * 1_000_000_000 + nanoseconds
        }
        return 0
    }

    private static func readSmallFile(_ path: String) -> String? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) else { return nil }
        guard let bytes = try? fd.readAll(limit: 4096) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
