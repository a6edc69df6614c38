import Entitlements
import Foundation
import Glibc
import PropertyList
import SharedDefaults

/// `--role profile steps-N`: microseconds of each in-process step of publish → entry for a
/// snapshot of N entitlements (the value, the encode, the decode, the schema, the timeline, and a
/// whole non-durable publish on /dev/shm), each the median of loops timed in the thread's CPU
/// time, so that other processes on the cores do not count.
enum PublishSteps {
    static func run(entitlements count: Int, catalogPath: String) throws(BenchmarkError) {
        let snapshot = SampleSnapshots.snapshot(generation: 2, entitlements: count)
        let maker = try WidgetEntryMaker(catalogPath: catalogPath)
        let value = PropertyListValue.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList])
        let bytes = try SampleSnapshots.fileBytes(snapshot)
        func time(_ name: String, _ body: () throws -> Void) rethrows {
            var samples: [Double] = []
            for _ in 0..<7 {
                let loops = max(5, 20_000 / count)
                let start = threadCPU()
                for _ in 0..<loops { try body() }
                samples.append(Double(threadCPU() - start) / Double(loops) / 1000)
            }
            print(String(format: "%@: %.1f µs", name, samples.sorted()[samples.count / 2]))
        }
        do {
            time("value") { blackHole(snapshot.propertyList) }
            try time("encode") { blackHole(try PropertyListCodec.encode(value, format: .binary)) }
            try time("decode value") { blackHole(try PropertyListCodec.decode(bytes)) }
            try time("decode + schema") { blackHole(try EntitlementSnapshot.decode(fromSuiteBytes: bytes)) }
            time("timeline") { maker.makeEntry(snapshot) }
            let root = try Workspace.make(under: "/dev/shm")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let defaults = SharedDefaults(suiteName: "bench.steps", container: root, options: .init(durable: false))
            try time("publish (tmpfs)") { try defaults.writeSnapshot(snapshot) }
        } catch {
            throw BenchmarkError("steps: \(error)")
        }
    }
}

/// Nanoseconds of CPU this thread has used.
private func threadCPU() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
