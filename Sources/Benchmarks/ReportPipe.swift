// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// A pipe that helper processes share as their standard output: each writes one short line per
/// report (`<reader> <generation> <monotonic ns>`), which the kernel keeps whole (lines are far
/// below `PIPE_BUF`). The benchmark reads the lines with a deadline.
final class ReportPipe {
    let readEnd: Int32
    let writeEnd: Int32
    private var buffer: [UInt8] = []

    init() throws(BenchmarkError) {
        (readEnd, writeEnd) = try makePipe()
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The next complete line, or `nil` once `deadline` (monotonic ns) has passed.
    func nextLine(deadline: UInt64) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let now = MonotonicClock.now()
            guard now < deadline else { return nil }
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let timeout = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            let ready = poll(&descriptor, 1, timeout)
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(readEnd, &chunk, chunk.count)
            if count > 0 { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }

    /// The next report line parsed as three integers.
    func nextReport(deadline: UInt64) -> Report? {
        while let line = nextLine(deadline: deadline) {
            if let report = Report(line) { return report }
        }
        return nil
    }

    /// One helper's report.
    struct Report {
        var reader: Int
        var generation: Int64
        var nanoseconds: UInt64

        init?(_ line: String) {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let reader = Int(fields[0]), let generation = Int64(fields[1]),
                let nanoseconds = UInt64(fields[2])
            else { return nil }
            self.reader = reader
            self.generation = generation
            self.nanoseconds = nanoseconds
        }
    }

    /// Writes one report line to standard output in a single `write` (used by helper roles).
    static func emit(reader: Int, generation: Int64, nanoseconds: UInt64) {
        let line = Array("\(reader) \(generation) \(nanoseconds)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}
