import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import EntitlementDefaults
import SharedDefaults

/// Runs every measurement of one benchmark run, in an order that keeps the quiet in-process
/// costs away from the many-process ones, and cleans up its directories and children.
struct BenchmarkSuite {
    let plan: BenchmarkPlan
    let catalogPath: String
    /// Progress lines go here (standard error), so standard output stays the result.
    let progress: (String) -> Void

    static let group = DaemonBenchmarks.group

    func run(mode: String) -> BenchmarkResults {
        var results = BenchmarkResults()
        results.mode = mode
        let diskRoot: String, memoryRoot: String
        do {
            diskRoot = try Workspace.make(under: "/tmp")
            memoryRoot = try Workspace.make(under: "/dev/shm")
        } catch {
            results.errors.append("\(error)")
            return results
        }
        defer {
            try? FileManager.default.removeItem(atPath: diskRoot)
            try? FileManager.default.removeItem(atPath: memoryRoot)
        }
        step("costs", into: &results) { results throws(BenchmarkError) in
            let gate = try WidgetEntryMaker(catalogPath: catalogPath).provider.gate
            results.checkNanoseconds = CostBenchmarks.featureCheck(gate: gate, iterations: plan.checkIterations, repeats: plan.costRepeats)
            for count in CostBenchmarks.decodeSizes {
                results.decodeMicroseconds[count] = try CostBenchmarks.decode(
                    entitlements: count, iterations: plan.decodeIterations, repeats: plan.costRepeats)
                results.valueTreeFloorMicroseconds[count] = try CostBenchmarks.valueTreeFloor(
                    entitlements: count, iterations: plan.decodeIterations, repeats: plan.costRepeats)
            }
            results.unchangedMicroseconds = try CostBenchmarks.unchanged(
                container: diskRoot + "/unchanged", iterations: plan.unchangedIterations, repeats: plan.costRepeats)
            results.twoStatsMicroseconds = CostBenchmarks.twoStats(
                container: diskRoot + "/unchanged", iterations: plan.unchangedIterations, repeats: plan.costRepeats)
        }
        step("signature verification beside openssl speed", into: &results) { results throws(BenchmarkError) in
            results.signatures = try SignatureBenchmarks.measure(seconds: plan.signatureSeconds, runOpenSSL: plan.runOpenSSL)
        }
        step("pipe ping-pong", into: &results) { results throws(BenchmarkError) in
            results.pipeOneWay = LatencySummary(microseconds: try PipePingPong.measure(rounds: plan.pingPongRounds))
        }
        step("propagation, durable", into: &results) { results throws(BenchmarkError) in
            results.durable = try propagation(root: diskRoot + "/durable", durable: true)
        }
        step("propagation, tmpfs", into: &results) { results throws(BenchmarkError) in
            results.tmpfs = try propagation(root: memoryRoot + "/tmpfs", durable: false)
        }
        for count in [1, 10, 100, 1000] {
            step("publish → entry, \(count) entitlements (tmpfs)", into: &results) { results throws(BenchmarkError) in
                results.sized.append(try sizedPropagation(root: memoryRoot + "/sized\(count)", entitlements: count))
            }
        }
        results.fanoutDirectory = Workspace.describe(diskRoot)
        for (nominal, actual) in plan.fanoutReaders {
            step("fan-out \(nominal)", into: &results) { results throws(BenchmarkError) in
                results.fanout.append(try fanout(root: diskRoot + "/fanout\(nominal)", nominal: nominal, readers: actual))
            }
        }
        step("stat() poller", into: &results) { results throws(BenchmarkError) in
            results.statPoller = try statPoller(root: diskRoot + "/poller")
        }
        step("UserDefaults", into: &results) { results throws(BenchmarkError) in
            results.userDefaults = try userDefaults()
        }
        let daemon = PackageTool("entitlementd"), renderer = PackageTool("widget-renderer")
        results.daemonTool = daemon.name
        results.rendererTool = renderer.name
        step("process floor", into: &results) { results throws(BenchmarkError) in
            results.processFloorMemory = try DaemonBenchmarks.processFloorMemory(idle: plan.idleSeconds)
        }
        step("daemon idle memory", into: &results) { results throws(BenchmarkError) in
            results.daemonMemory = try DaemonBenchmarks.idleMemory(container: diskRoot + "/idle", catalogPath: catalogPath, idle: plan.idleSeconds)
        }
        step("widget-renderer", into: &results) { results throws(BenchmarkError) in
            (results.renderMilliseconds, results.processFloorMilliseconds) = try DaemonBenchmarks.renderTimes(
                container: diskRoot + "/idle", catalogPath: catalogPath, runs: plan.renderRuns)
        }
        step("purchase → widget entry", into: &results) { results throws(BenchmarkError) in
            results.purchase = try PurchaseBenchmark(rounds: plan.purchaseRounds).run(container: diskRoot + "/purchase", catalogPath: catalogPath)
        }
        step("companion: phone purchase → watch entry, catch-up", into: &results) { results throws(BenchmarkError) in
            results.companion = try CompanionBenchmark(rounds: plan.companionRounds, catchUpEvents: plan.catchUpEvents).run(
                root: diskRoot + "/companion", catalogPath: catalogPath, tcpRounds: plan.pingPongRounds)
        }
        step("ingest", into: &results) { results throws(BenchmarkError) in
            results.ingest = try plan.ingest.run(container: diskRoot + "/ingest", catalogPath: catalogPath)
        }
        step("ingest, one event per call", into: &results) { results throws(BenchmarkError) in
            results.singleEventIngest = try plan.singleEventIngest.run(container: diskRoot + "/ingest1", catalogPath: catalogPath)
        }
        step("verified ingest", into: &results) { results throws(BenchmarkError) in
            results.verifiedIngest = try plan.verifiedIngest.run(container: diskRoot + "/ingest-jws", catalogPath: catalogPath)
        }
        return results
    }

    private func step(_ name: String, into results: inout BenchmarkResults, _ body: (inout BenchmarkResults) throws(BenchmarkError) -> Void) {
        progress("entitlement-bench: \(name)…")
        let start = MonotonicClock.now()
        do { try body(&results) } catch { results.errors.append("\(name): \(error)") }
        progress(String(format: "entitlement-bench: %@ done in %.1f s", name, Double(MonotonicClock.now() - start) / 1e9))
    }

    /// Floor and package in alternating blocks, each against its own directory under `root`.
    func propagation(root: String, durable: Bool) throws(BenchmarkError) -> BenchmarkResults.Propagation {
        let floorContainer = root + "/floor", packageContainer = root + "/package"
        let preferences = "/Library/Preferences"
        try Workspace.makeDirectories(floorContainer + preferences)
        try Workspace.makeDirectories(packageContainer + preferences)
        let fileName = Self.group + ".plist"
        let size = try SampleSnapshots.fileBytes(SampleSnapshots.snapshot(generation: 1)).count
        let floorWriter = try RawFloorWriter(directory: floorContainer + preferences, name: fileName, size: size, durable: durable)
        let store = SharedDefaults(suiteName: Self.group, container: packageContainer, options: .init(durable: durable))
        var result = BenchmarkResults.Propagation(directory: Workspace.describe(root))
        var floorSamples: [Double] = [], packageSamples: [Double] = []
        let blockRounds = max(1, plan.propagationRounds / plan.propagationBlocks)
        var packageGeneration: Int64 = 0
        var cpu: [[Double?]] = [[], [], [], []]  // floor reader, package reader, floor writer, package writer
        for _ in 0..<plan.propagationBlocks {
            let floor = try PropagationRun(
                readerArguments: { ["floor-reader", floorContainer + preferences, fileName, String($0)] }, readers: 1, warmup: 20,
                rounds: blockRounds, roundTimeout: 2
            ).run { generation throws(BenchmarkError) in try floorWriter.write(generation: generation) }
            floorSamples += floor.everyReader
            result.floorMisses += floor.misses
            let package = try PropagationRun(
                readerArguments: { ["package-reader", packageContainer, Self.group, catalogPath, String($0)] }, readers: 1, warmup: 20,
                rounds: blockRounds, roundTimeout: 2
            ).run(firstGeneration: packageGeneration + 1) { generation throws(BenchmarkError) in
                packageGeneration = generation
                return try publish(store, generation: generation)
            }
            packageSamples += package.everyReader
            result.packageMisses += package.misses
            result.floorWakeUps = floor.wakeUpsPerWrite
            result.packageWakeUps = package.wakeUpsPerWrite
            cpu[0].append(floor.readerCPUPerWrite)
            cpu[1].append(package.readerCPUPerWrite)
            cpu[2].append(floor.writerCPUPerWrite)
            cpu[3].append(package.writerCPUPerWrite)
        }
        func mean(_ values: [Double?]) -> Double? {
            let known = values.compactMap { $0 }
            return known.count == values.count && !known.isEmpty ? known.reduce(0, +) / Double(known.count) : nil
        }
        (result.floorReaderCPU, result.packageReaderCPU) = (mean(cpu[0]), mean(cpu[1]))
        (result.floorWriterCPU, result.packageWriterCPU) = (mean(cpu[2]), mean(cpu[3]))
        result.floor = LatencySummary(microseconds: floorSamples)
        result.package = LatencySummary(microseconds: packageSamples)
        return result
    }

    /// Publishes generation `generation` (the snapshot value is built first) and returns the
    /// monotonic time the publish started.
    private func publish(_ store: SharedDefaults, generation: Int64, entitlements: Int = 1) throws(BenchmarkError) -> UInt64 {
        let snapshot = SampleSnapshots.snapshot(generation: generation, entitlements: entitlements)
        let start = MonotonicClock.now()
        do { try store.writeSnapshot(snapshot) } catch { throw BenchmarkError("publish: \(error)") }
        return start
    }

    func fanout(root: String, nominal: Int, readers: Int) throws(BenchmarkError) -> BenchmarkResults.Fanout {
        try Workspace.makeDirectories(root + "/Library/Preferences")
        let store = SharedDefaults(suiteName: Self.group, container: root, options: .init(durable: true))
        let outcome = try PropagationRun(
            readerArguments: { ["package-reader", root, Self.group, catalogPath, String($0)] }, readers: readers, warmup: 10,
            rounds: plan.fanoutRounds, roundTimeout: 2
        ).run { generation throws(BenchmarkError) in try publish(store, generation: generation) }
        let fileName = Self.group + ".plist"
        let floorDirectory = root + "/floor/Library/Preferences"
        try Workspace.makeDirectories(floorDirectory)
        let size = try SampleSnapshots.fileBytes(SampleSnapshots.snapshot(generation: 1)).count
        let floorWriter = try RawFloorWriter(directory: floorDirectory, name: fileName, size: size, durable: true)
        let floor = try PropagationRun(
            readerArguments: { ["floor-reader", floorDirectory, fileName, String($0)] }, readers: readers, warmup: 10,
            rounds: plan.fanoutRounds, roundTimeout: 2
        ).run { generation throws(BenchmarkError) in try floorWriter.write(generation: generation) }
        return BenchmarkResults.Fanout(
            nominal: nominal, readers: readers, lastReader: LatencySummary(microseconds: outcome.lastReader), misses: outcome.misses,
            rounds: outcome.rounds, floorLastReader: LatencySummary(microseconds: floor.lastReader), wakeUps: outcome.wakeUpsPerWrite,
            floorWakeUps: floor.wakeUpsPerWrite, readerCPU: outcome.readerCPUPerWrite, floorReaderCPU: floor.readerCPUPerWrite)
    }

    /// Publish → entry on tmpfs (one reader) with `count` entitlements in the snapshot, and the
    /// raw floor moving a file of the same size, in that order, each in its own directory.
    func sizedPropagation(root: String, entitlements count: Int) throws(BenchmarkError) -> BenchmarkResults.SizedPropagation {
        let floorDirectory = root + "/floor/Library/Preferences", packageContainer = root + "/package"
        try Workspace.makeDirectories(floorDirectory)
        try Workspace.makeDirectories(packageContainer + "/Library/Preferences")
        let fileName = Self.group + ".plist"
        let size = try SampleSnapshots.fileBytes(SampleSnapshots.snapshot(generation: 1, entitlements: count)).count
        let floorWriter = try RawFloorWriter(directory: floorDirectory, name: fileName, size: size, durable: false)
        let floor = try PropagationRun(
            readerArguments: { ["floor-reader", floorDirectory, fileName, String($0)] }, readers: 1, warmup: min(10, plan.sizedRounds),
            rounds: plan.sizedRounds, roundTimeout: 2
        ).run { generation throws(BenchmarkError) in try floorWriter.write(generation: generation) }
        let store = SharedDefaults(suiteName: Self.group, container: packageContainer, options: .init(durable: false))
        let package = try PropagationRun(
            readerArguments: { ["package-reader", packageContainer, Self.group, catalogPath, String($0)] }, readers: 1, warmup: min(10, plan.sizedRounds),
            rounds: plan.sizedRounds, roundTimeout: 2
        ).run { generation throws(BenchmarkError) in try publish(store, generation: generation, entitlements: count) }
        return BenchmarkResults.SizedPropagation(
            entitlements: count, fileBytes: size, package: LatencySummary(microseconds: package.everyReader),
            floor: LatencySummary(microseconds: floor.everyReader), misses: package.misses + floor.misses)
    }

    private func statPoller(root: String) throws(BenchmarkError) -> BenchmarkResults.Peer {
        try Workspace.makeDirectories(root + "/Library/Preferences")
        let store = SharedDefaults(suiteName: Self.group, container: root, options: .init(durable: true))
        _ = try publish(store, generation: 1)
        let outcome = try PropagationRun(
            readerArguments: { ["stat-poller", root, Self.group, catalogPath, String($0)] }, readers: 1, warmup: 10,
            rounds: plan.peerRounds, roundTimeout: 0.5
        ).run(firstGeneration: 2) { generation throws(BenchmarkError) in try publish(store, generation: generation) }
        return BenchmarkResults.Peer(latency: LatencySummary(microseconds: outcome.everyReader), rounds: outcome.rounds, misses: outcome.misses)
    }

    private func userDefaults() throws(BenchmarkError) -> BenchmarkResults.Peer {
        let suite = "entitlement-bench.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let writer = try UserDefaultsPeer.Writer(suite: suite)
        defer { writer.removeFile() }
        _ = writer.write(generation: 0)
        let outcome = try PropagationRun(
            readerArguments: { ["defaults-reader", suite, String($0)] }, readers: 1, warmup: 5, rounds: plan.peerRounds, roundTimeout: 0.25
        ).run { generation in writer.write(generation: generation) }
        return BenchmarkResults.Peer(latency: LatencySummary(microseconds: outcome.everyReader), rounds: outcome.rounds, misses: outcome.misses)
    }
}
