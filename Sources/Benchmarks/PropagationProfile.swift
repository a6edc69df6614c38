import Foundation

/// `--role profile propagation-tmpfs|propagation-durable|propagation-sized-N [rounds]`: only the
/// floor-vs-package propagation rows of one mode (`sized-N`: tmpfs, N entitlements) (the `--quick` plan's blocks, `rounds` rounds in all, default 600),
/// printed as one line, to compare a change to the watcher, reader or publish path without the
/// rest of the suite, or to run the writer under `strace -c` / `perf`.
enum PropagationProfile {
    static func run(_ name: String, rounds: Int?, catalogPath: String) throws(BenchmarkError) {
        if name.hasPrefix("propagation-sized-"), let count = Int(name.dropFirst("propagation-sized-".count)) {
            var plan = BenchmarkPlan.quick
            plan.sizedRounds = rounds ?? 200
            let root = try Workspace.make(under: "/dev/shm")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let sized = try BenchmarkSuite(plan: plan, catalogPath: catalogPath) { _ in }.sizedPropagation(root: root + "/sized", entitlements: count)
            print(
                String(
                    format: "%@: floor p50 %.1f µs p99 %.1f µs | package p50 %.1f µs p99 %.1f µs | misses %d", name, sized.floor?.p50 ?? .nan,
                    sized.floor?.p99 ?? .nan, sized.package?.p50 ?? .nan, sized.package?.p99 ?? .nan, sized.misses))
            return
        }
        let durable: Bool
        switch name {
        case "propagation-tmpfs": durable = false
        case "propagation-durable": durable = true
        default: throw BenchmarkError("unknown propagation profile '\(name)' (propagation-tmpfs, propagation-durable)")
        }
        var plan = BenchmarkPlan.quick
        plan.propagationRounds = rounds ?? 600
        let root = try Workspace.make(under: durable ? "/tmp" : "/dev/shm")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let suite = BenchmarkSuite(plan: plan, catalogPath: catalogPath) { _ in }
        let result = try suite.propagation(root: root + "/propagation", durable: durable)
        guard let floor = result.floor, let package = result.package else {
            throw BenchmarkError("no samples (floor misses \(result.floorMisses), package misses \(result.packageMisses))")
        }
        print(
            String(
                format: "%@: floor p50 %.1f µs p99 %.1f µs | package p50 %.1f µs (%.2f×) p99 %.1f µs (%.2f×) | misses %d/%d",
                name, floor.p50, floor.p99, package.p50, package.p50 / floor.p50, package.p99, package.p99 / floor.p99,
                result.floorMisses, result.packageMisses))
    }
}
