import Foundation

/// `--role profile propagation-tmpfs|propagation-durable|propagation-sized-N [rounds]`: only the
/// floor-vs-package propagation rows of one mode (`sized-N`: tmpfs, N entitlements) (the `--quick` plan's blocks, `rounds` rounds in all, default 600),
/// printed as one line, to compare a change to the watcher, reader or publish path without the
/// rest of the suite, or to run the writer under `strace -c` / `perf`.
///
/// `--role profile fanout-N [rounds]`: the fan-out row for N readers alone (durable, default 120
/// rounds), package and floor, as one line, to run the readers under `perf`.
///
/// `--role profile purchase [rounds]`: the purchase → widget entry row alone (default 100
/// purchases) with the durable propagation floor it is judged against, as one line.
enum PropagationProfile {
    static func run(_ name: String, rounds: Int?, catalogPath: String) throws(BenchmarkError) {
        if name == "purchase" {
            try purchase(rounds: rounds ?? 100, catalogPath: catalogPath)
            return
        }
        if name.hasPrefix("fanout-"), let readers = Int(name.dropFirst("fanout-".count)), readers > 0 {
            var plan = BenchmarkPlan.quick
            plan.fanoutRounds = rounds ?? plan.fanoutRounds
            let root = try Workspace.make(under: "/tmp")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let fanout = try BenchmarkSuite(plan: plan, catalogPath: catalogPath) { _ in }.fanout(root: root + "/fanout", nominal: readers, readers: readers)
            let package = fanout.lastReader, floor = fanout.floorLastReader
            print(
                String(
                    format: "%@: last reader p50 %.0f µs (%.2f× floor %.0f µs) p99 %.0f µs (%.2f× floor %.0f µs) | wake-ups %.2f / %.2f | CPU µs per wake-up %.1f / %.1f | misses %d", name,
                    package?.p50 ?? .nan, (package?.p50 ?? .nan) / (floor?.p50 ?? .nan), floor?.p50 ?? .nan, package?.p99 ?? .nan,
                    (package?.p99 ?? .nan) / (floor?.p99 ?? .nan), floor?.p99 ?? .nan, fanout.wakeUps ?? .nan, fanout.floorWakeUps ?? .nan,
                    fanout.readerCPU ?? .nan, fanout.floorReaderCPU ?? .nan, fanout.misses))
            return
        }
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
                format: "%@: floor p50 %.1f µs p99 %.1f µs | package p50 %.1f µs (%.2f×) p99 %.1f µs (%.2f×) | misses %d/%d"
                    + " | CPU µs per write: reader %.1f (floor %.1f), writer %.1f (floor %.1f)",
                name, floor.p50, floor.p99, package.p50, package.p50 / floor.p50, package.p99, package.p99 / floor.p99,
                result.floorMisses, result.packageMisses, result.packageReaderCPU ?? .nan, result.floorReaderCPU ?? .nan,
                result.packageWriterCPU ?? .nan, result.floorWriterCPU ?? .nan))
    }

    private static func purchase(rounds: Int, catalogPath: String) throws(BenchmarkError) {
        var plan = BenchmarkPlan.quick
        plan.propagationRounds = 300
        let root = try Workspace.make(under: "/tmp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let suite = BenchmarkSuite(plan: plan, catalogPath: catalogPath) { _ in }
        var results = BenchmarkResults()
        results.durable = try suite.propagation(root: root + "/propagation", durable: true)
        results.purchase = try PurchaseBenchmark(rounds: rounds).run(container: root + "/purchase", catalogPath: catalogPath)
        let floor = BenchmarkReport(results: results).purchaseFloor
        let purchase = results.purchase
        print(
            String(
                format: "purchase: p50 %.0f µs (%.2f× floor %.0f µs) p99 %.0f µs (%.2f× floor %.0f µs) | spawn floor p50 %.0f µs"
                    + " | raw durable floor p50 %.0f µs | parts p50: entitlementctl %.0f µs, daemon %.0f µs (p99 %.0f µs), follower %.0f µs | rounds %d",
                purchase?.latency?.p50 ?? .nan, (purchase?.latency?.p50 ?? .nan) / (floor.p50 ?? .nan), floor.p50 ?? .nan,
                purchase?.latency?.p99 ?? .nan, (purchase?.latency?.p99 ?? .nan) / (floor.p99 ?? .nan), floor.p99 ?? .nan,
                purchase?.spawnFloor?.p50 ?? .nan, results.durable.floor?.p50 ?? .nan, purchase?.toolPart?.p50 ?? .nan,
                purchase?.daemonPart?.p50 ?? .nan, purchase?.daemonPart?.p99 ?? .nan, purchase?.followerPart?.p50 ?? .nan,
                purchase?.rounds ?? 0))
    }
}
