// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// A pipe that helper processes share as their standard output: each writes one short line per
/// report (`<reader> <generation> <monotonic ns>`), which the kernel keeps whole (lines are far
/// below `PIPE_BUF`). The benchmark reads the lines with a deadline.
final class ReportPipe {
    let readEnd: Int32
    let writeEnd: Int32
    /// Bytes read and not yet returned are `buffer[start..<end]`; a line is returned as a range
    /// of it, valid until the next read. The benchmark's process parses up to 64 lines per
    /// publish while readers are still at work on the same 2 cores, so this costs a few hundred
    /// instructions a line, not a `String` and a split.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0

    init() throws(BenchmarkError) {
        (readEnd, writeEnd) = try makePipe()
        // Only this process reads: it tries a read first and polls only when the pipe is empty.
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The next complete line, or `nil` once `deadline` (monotonic ns) has passed.
    func nextLine(deadline: UInt64) -> String? {
        guard let line = nextLineRange(deadline: deadline) else { return nil }
        return String(decoding: buffer[line], as: UTF8.self)
    }

    /// The next report line parsed as three integers (lines that are not one are skipped).
    func nextReport(deadline: UInt64) -> Report? {
        while let line = nextLineRange(deadline: deadline) {
            if let report = buffer.withUnsafeBufferPointer({ Report(UnsafeBufferPointer(rebasing: $0[line])) }) { return report }
        }
        return nil
    }

    /// Where the next complete line is in `buffer` (without its newline), consumed; `nil` once
    /// `deadline` has passed.
    private func nextLineRange(deadline: UInt64) -> Range<Int>? {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                return start..<newline
            }
            if start == end {
                (start, end) = (0, 0)
            } else if start > 0 {
                buffer.withUnsafeMutableBytes { bytes in
                    _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
                }
                (start, end) = (0, end - start)
            }
            if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            let count = buffer.withUnsafeMutableBytes { bytes in read(readEnd, bytes.baseAddress! + end, bytes.count - end) }
            if count > 0 {
                end += count
                continue
            }
            let now = MonotonicClock.now()
            guard now < deadline else { return nil }
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
        }
    }

    /// One helper's report.
    struct Report {
        var reader: Int
        var generation: Int64
        var nanoseconds: UInt64

        /// `<reader> <generation> <nanoseconds>`: three decimal integers, one space apart.
        init?(_ line: UnsafeBufferPointer<UInt8>) {
            var fields: [UInt64] = []
            fields.reserveCapacity(3)
            var value: UInt64 = 0, digits = 0
            for byte in line {
                if byte == 0x20 {
                    guard digits > 0 else { return nil }
                    fields.append(value)
                    (value, digits) = (0, 0)
                } else if byte >= 0x30, byte <= 0x39, digits < 19 {
                    value = value * 10 + UInt64(byte - 0x30)
                    digits += 1
                } else {
                    return nil
                }
            }
            guard digits > 0, fields.count == 2 else { return nil }
            guard let reader = Int(exactly: fields[0]), let generation = Int64(exactly: fields[1]) else { return nil }
            self.reader = reader
            self.generation = generation
            self.nanoseconds = value
        }
    }

    /// Writes one report line to standard output in a single `write` (used by helper roles).
    static func emit(reader: Int, generation: Int64, nanoseconds: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { line in
            var length = 0
            for value in [UInt64(reader), UInt64(generation), nanoseconds] {
                if length > 0 {
                    line[length] = 0x20
                    length += 1
                }
                var digits = value, first = length
                repeat {
                    line[length] = 0x30 + UInt8(digits % 10)
                    digits /= 10
                    length += 1
                } while digits > 0
                var last = length - 1
                while first < last {
                    line.swapAt(first, last)
                    first += 1
                    last -= 1
                }
            }
            line[length] = 0x0A
            _ = write(1, line.baseAddress, length + 1)
        }
    }
}
