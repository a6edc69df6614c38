// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The scheduler's one-way floor: one byte bounced between this process and a helper
/// (`pong` role) over two pipes; one way is half the round trip.
enum PipePingPong {
    /// The helper: echoes every byte from standard input to standard output until EOF.
    static func pong() -> Never {
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1 {
            _ = write(1, &byte, 1)
        }
        exit(0)
    }

    /// One-way latencies in microseconds over `rounds` round trips.
    static func measure(rounds: Int) throws(BenchmarkError) -> [Double] {
        let toChild = try makePipe(), fromChild = try makePipe()
        let child = try SpawnedProcess(
            executable: SelfExecutable.path, arguments: ["--role", "pong"], standardInput: toChild.read, standardOutput: fromChild.write)
        close(toChild.read)
        close(fromChild.write)
        defer {
            close(toChild.write)
            close(fromChild.read)
            child.stop()
        }
        var samples: [Double] = []
        samples.reserveCapacity(rounds)
        var byte: UInt8 = 1
        for round in 0..<(rounds + 50) {
            let start = MonotonicClock.now()
            guard write(toChild.write, &byte, 1) == 1, read(fromChild.read, &byte, 1) == 1 else { throw .system("ping-pong") }
            let end = MonotonicClock.now()
            if round >= 50 { samples.append(Double(end - start) / 2000) }
        }
        return samples
    }
}
