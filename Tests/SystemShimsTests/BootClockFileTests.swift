import SystemShims
import Testing

/// The two `/proc` files the boot clock reads, parsed from bytes: the same answers as reading
/// them as text with `split` and `Int64(_:)` (the reference below), for what the kernel writes
/// and for what it never should.
@Suite("Boot clock: /proc/sys/kernel/random/boot_id and /proc/self/timens_offsets")
struct BootClockFileTests {
    /// What the readers answered when they read the files as text.
    static func referenceBootID(_ text: String) -> String? {
        let id = text.split(separator: "\n").first.map(String.init) ?? ""
        return id.isEmpty ? nil : id
    }

    static func referenceOffset(_ text: String) -> Int64 {
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3, fields[0] == "boottime", let seconds = Int64(fields[1]), let nanoseconds = Int64(fields[2]),
                abs(seconds) < 1 << 40
            else { continue }
            return seconds * 1_000_000_000 + nanoseconds
        }
        return 0
    }

    static let bootIDFiles = [
        "6a1f3c2e-8b4d-4e7a-9c1b-2f3e4d5a6b7c\n", "6a1f3c2e-8b4d-4e7a-9c1b-2f3e4d5a6b7c", "\n\nsecond-line\nthird\n", "", "\n", "\n\n",
        "id with spaces\n", "caf\u{E9}\n",
    ]

    static let offsetFiles = [
        "monotonic           0         0\nboottime            0         0\n",
        "monotonic 0 0\nboottime -5 100\n", "boottime\t3\t-7\n", "boottime 12 34", "\n\nboottime 1 2\n\n", "boottime +4 +5\n",
        "boottime 1 2 3\nboottime 6 7\n", "boottime 1\n", "boottime - 1\n", "boottime + 1\n", "boottime 1x 2\n", "Boottime 1 2\n",
        "boottime 9223372036854775807 0\n", "boottime 99999999999999999999 0\n", "boottime 1 -9223372036854775808\n",
        "boottime 1 9223372036854775808\n", "boottime 1099511627776 0\nboottime 2 3\n", "boottime 9223372036 854775807\n",
        "boottime -9223372036 -854775808\n", "", "garbage", "  boottime   8   9  \n",
    ]

    @Test("The boot id is the first non-empty line", arguments: bootIDFiles)
    func bootID(file: String) {
        #expect(BootClock.bootID(inFile: Array(file.utf8)) == Self.referenceBootID(file))
    }

    @Test("The offset is the first well-formed boottime line, in nanoseconds; 0 without one", arguments: offsetFiles)
    func namespaceOffset(file: String) {
        #expect(BootClock.namespaceOffset(inFile: Array(file.utf8)) == Self.referenceOffset(file))
    }

    /// The text reading trapped on these (`abs` of the smallest Int64, a product or sum past
    /// 64 bits); now such a line is one that does not parse.
    @Test("A boottime line whose numbers do not fit is skipped, not a crash")
    func offsetOutOfRange() {
        for file in [
            "boottime 1099511627775 0\n", "boottime -1099511627775 -999999999\n", "boottime 9223372036 854775808\n",
            "boottime -9223372036854775808 0\n", "boottime 9223372037 0\n",
        ] {
            #expect(BootClock.namespaceOffset(inFile: Array(file.utf8)) == 0, "\(file)")
            #expect(BootClock.namespaceOffset(inFile: Array((file + "boottime 2 3\n").utf8)) == 2_000_000_003, "\(file)")
        }
    }

    @Test("This process reads its boot id")
    func currentBootID() {
        #expect(BootClock.bootID?.count == 36)
    }
}
