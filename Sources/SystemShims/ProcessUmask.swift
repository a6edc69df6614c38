import Glibc
import Synchronization

/// The process's file-creation mask, read once from `/proc/self/status` (`Umask:`, Linux 4.7+)
/// without changing it (`umask(2)` can only be read by setting it, which races with other
/// threads creating files).
///
/// Used only to skip an `fchmod` that would change nothing. A wrong cached value can only make a
/// new file *more* restrictive than asked (creation applies `mode & ~umask`), and
/// ``AtomicFile/replace(in:name:bytes:mode:durable:)`` checks the result with `fstat` and fixes
/// it, calling ``forget()``.
package enum ProcessUmask {
    private static let cached = Mutex<UInt32?>(nil)

    /// Whether creating a file with `mode` would lose bits to the umask (also `true` when the
    /// umask cannot be read: then always `fchmod`).
    package static func masks(_ mode: UInt32) -> Bool {
        let mask = cached.withLock { value -> UInt32 in
            if let value { return value }
            let read = readFromProc() ?? 0o7777
            value = read
            return read
        }
        return mode & mask != 0
    }

    /// Drops the cached value; the next ``masks(_:)`` reads it again.
    package static func forget() {
        cached.withLock { $0 = nil }
    }

    private static func readFromProc() -> UInt32? {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly) else { return nil }
        guard let bytes = try? fd.readAll(limit: 64 * 1024) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Umask:") {
            // `drop(while:)`, not `trimmingPrefix(while:)`, which would link _StringProcessing.
            return UInt32(line.dropFirst("Umask:".count).drop(while: { $0 == " " || $0 == "\t" }), radix: 8)
        }
        return nil
    }
}
