import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The peer an app developer reaches for first: Foundation's `UserDefaults(suiteName:)`. On
/// Linux a suite is `~/.config/<suite>.plist`; a reader only sees another process's write when it
/// calls `synchronize()`, so the reader (helper role `defaults-reader`) calls it every millisecond.
enum UserDefaultsPeer {
    static let key = "generation"

    static func runReader(suite: String, index: Int) -> Never {
        guard let defaults = UserDefaults(suiteName: suite) else { exit(70) }
        var last = 0
        _ = defaults.synchronize()
        ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0)
        while true {
            usleep(1000)
            _ = defaults.synchronize()
            let generation = defaults.integer(forKey: key)
            if generation > last {
                last = generation
                ReportPipe.emit(reader: index, generation: Int64(generation), nanoseconds: MonotonicClock.now())
            }
        }
    }

    /// The writer side, in the benchmark's own process.
    final class Writer {
        let suite: String
        private let defaults: UserDefaults

        init(suite: String) throws(BenchmarkError) {
            guard let defaults = UserDefaults(suiteName: suite) else { throw BenchmarkError("UserDefaults(suiteName: \(suite)) is nil") }
            self.suite = suite
            self.defaults = defaults
        }

        /// Sets the generation and synchronizes; returns the monotonic start time.
        func write(generation: Int64) -> UInt64 {
            let start = MonotonicClock.now()
            defaults.set(Int(generation), forKey: key)
            _ = defaults.synchronize()
            return start
        }

        /// Deletes the suite's file (`~/.config/<suite>.plist`).
        func removeFile() {
            defaults.removePersistentDomain(forName: suite)
            let path = FileManager.default.homeDirectoryForCurrentUser.path + "/.config/" + suite + ".plist"
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
