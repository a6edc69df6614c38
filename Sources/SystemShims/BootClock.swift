#if canImport(Glibc)
import Glibc
#else
#error("Unsupported Platform")
#endif
import Synchronization

/// The kernel's boot clock: which boot this is, and how long ago it started. Neither can be
/// wound back by setting the wall clock (`CLOCK_BOOTTIME` only moves forward, and counts time
/// spent suspended).
package enum BootClock {
    /// The kernel's random id of the current boot (`/proc/sys/kernel/random/boot_id`, a UUID in
    /// lower-case text), read once per process; `nil` when it cannot be read (no `/proc`).
    package static var bootID: String? {
        cached.withLock { value in
            if let value { return value }
            let read = readBootID()
            value = read
            return read
        }
    }

    /// Nanoseconds since this boot started (`clock_gettime(CLOCK_BOOTTIME)`).
    package static var nanosecondsSinceBoot: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }

    private static let cached = Mutex<String?>(nil)

    private static func readBootID() -> String? {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open("/proc/sys/kernel/random/boot_id", .readOnly, options: [.closeOnExec]) } catch { return nil }
        defer { try? fd.close() }
        guard let bytes = try? fd.readAll(limit: 128) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingSuffix(while: { $0 == "\n" })
        return text.isEmpty ? nil : String(text)
    }
}

extension StringProtocol {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
