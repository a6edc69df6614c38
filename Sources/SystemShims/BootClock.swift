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

    // Both files are read as bytes, by hand: `String`'s `split` and `Int64(_:)` of a
    // `Substring` are the standard library's unspecialized generic code, and their first use
    // cost a one-shot tool more than the two reads.

    private static func readBootID() -> String? {
        readSmallFile("/proc/sys/kernel/random/boot_id").flatMap(bootID(inFile:))
    }

    /// The boot id in the bytes of `/proc/sys/kernel/random/boot_id`: its first non-empty line.
    package static func bootID(inFile bytes: [UInt8]) -> String? {
        var id: String?
        forEachLine(of: bytes) { line in
            if line.isEmpty { return true }
            id = String(decoding: bytes[line], as: UTF8.self)
            return false
        }
        return id
    }

    /// The `boottime <seconds> <nanoseconds>` line of `/proc/self/timens_offsets`, in
    /// nanoseconds; 0 without time namespaces (the file is absent) or when it does not parse.
    private static func readNamespaceOffset() -> Int64 {
        readSmallFile("/proc/self/timens_offsets").map(namespaceOffset(inFile:)) ?? 0
    }

    /// The offset in the bytes of `/proc/self/timens_offsets`: the first line of three fields
    /// (separated by spaces and tabs) `boottime <seconds> <nanoseconds>` whose numbers are
    /// decimal integers, whose seconds are below 2^40 in magnitude and whose total fits in 64
    /// bits, in nanoseconds; 0 without one.
    package static func namespaceOffset(inFile bytes: [UInt8]) -> Int64 {
        var offset: Int64 = 0
        forEachLine(of: bytes) { line in
            // Fields separated by runs of spaces and tabs.
            var fields: (Range<Int>, Range<Int>, Range<Int>) = (0..<0, 0..<0, 0..<0)
            var count = 0, index = line.lowerBound
            while index < line.upperBound {
                if bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1; continue }
                let start = index
                while index < line.upperBound, bytes[index] != 0x20, bytes[index] != 0x09 { index += 1 }
                switch count {
                case 0: fields.0 = start..<index
                case 1: fields.1 = start..<index
                case 2: fields.2 = start..<index
                default: break
                }
                count += 1
            }
            guard count == 3, bytes[fields.0].elementsEqual("boottime".utf8), let seconds = integer(bytes[fields.1]),
                let nanoseconds = integer(bytes[fields.2]), seconds.magnitude < 1 << 40
            else { return true }
            // A sum that does not fit (the kernel writes none) is a line that does not parse.
            let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let (total, carry) = whole.addingReportingOverflow(nanoseconds)
            guard !overflow, !carry else { return true }
            offset = total
            return false
        }
        return offset
    }

    /// Calls `body` with the range of each line of `bytes` (without its LF; empty lines too)
    /// until it returns `false`.
    private static func forEachLine(of bytes: [UInt8], _ body: (Range<Int>) -> Bool) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            guard body(start..<end) else { return }
            start = end + 1
        }
    }

    /// A decimal integer as `Int64(_:)` reads one: an optional sign, then one or more digits
    /// and nothing else; `nil` when it does not fit.
    private static func integer(_ text: ArraySlice<UInt8>) -> Int64? {
        var digits = text[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = Int64(byte - 0x30)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }

    private static func readSmallFile(_ path: String) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) else { return nil }
        return try? fd.readAll(limit: 4096)
    }
}
