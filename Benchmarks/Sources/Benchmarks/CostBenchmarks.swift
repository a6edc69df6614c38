import Entitlements
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import PropertyList
import EntitlementDefaults
import SharedDefaults

/// In-process costs: a feature check on a loaded snapshot, decode and validation of the shared
/// file's bytes, and the "unchanged?" fast path of a reader.
enum CostBenchmarks {
    /// Nanoseconds per ``FeatureGate/check(_:snapshot:wallClock:currentCount:daysAgo:adding:)``
    /// (the decision with its paywall) of `widgets` on a loaded snapshot, as a widget or list cell
    /// checks. Median of `repeats` timed loops of `iterations` checks, counted into a black hole.
    static func featureCheck(gate: FeatureGate, iterations: Int, repeats: Int) -> Double {
        let snapshot = SampleSnapshots.snapshot(generation: 2, entitlements: 3)
        let wallClock = snapshot.issuedAt.addingTimeInterval(60)
        var perCheck: [Double] = []
        for _ in 0..<repeats {
            var unlocked = 0
            let start = MonotonicClock.now()
            for _ in 0..<iterations where gate.check("widgets", snapshot: snapshot, wallClock: wallClock).isUnlocked {
                unlocked &+= 1
            }
            let elapsed = MonotonicClock.now() - start
            blackHole(unlocked)
            perCheck.append(Double(elapsed) / Double(iterations))
        }
        return median(perCheck)
    }

    /// The snapshot sizes the decode rows measure: one entitlement up to a catalog of many
    /// products and features, so the cost's growth is on the table.
    static let decodeSizes = [1, 10, 100, 1000]

    /// Microseconds to turn the shared file's bytes into a validated snapshot with
    /// ``EntitlementSnapshot/decode(fromSuiteBytes:)`` (the whole file decoded by the validating
    /// property-list walk, the snapshot read from its value by the schema) for a snapshot of
    /// `entitlements` entitlements.
    /// - Parameter loopBudget: nanoseconds one timed loop may take at most
    ///   (`microsecondsPerCall`); more when profiling.
    static func decode(entitlements: Int, iterations: Int, repeats: Int, loopBudget: UInt64 = 100_000_000) throws(BenchmarkError) -> Double {
        let bytes = try SampleSnapshots.fileBytes(SampleSnapshots.snapshot(generation: 7, entitlements: entitlements))
        return try microsecondsPerCall(iterations: iterations, repeats: repeats, loopBudget: loopBudget) { () throws(BenchmarkError) in
            do { return Int(try EntitlementSnapshot.decode(fromSuiteBytes: bytes).generation) } catch { throw BenchmarkError("decode: \(error)") }
        }
    }

    /// The floor under ``decode(entitlements:iterations:repeats:loopBudget:)``: microseconds to
    /// build and free the containers of the very value that decode builds, in the same order,
    /// with its scalars shared rather than read from bytes. Any decode into a `PropertyListValue`
    /// does at least this much, so a decode bound below it asks for another value type.
    static func valueTreeFloor(entitlements: Int, iterations: Int, repeats: Int, loopBudget: UInt64 = 100_000_000) throws(BenchmarkError) -> Double {
        let value: PropertyListValue
        do {
            value = try PropertyListCodec.decode(try SampleSnapshots.fileBytes(SampleSnapshots.snapshot(generation: 7, entitlements: entitlements)))
        } catch {
            throw BenchmarkError("decode: \(error)")
        }
        func rebuilt(_ value: PropertyListValue) -> PropertyListValue {
            switch value {
            case .dictionary(let members):
                var copy = PropertyListDictionary(minimumCapacity: members.count)
                for (key, member) in members { copy[key] = rebuilt(member) }
                return .dictionary(copy)
            case .array(let elements): return .array(elements.map(rebuilt))
            default: return value
            }
        }
        return try microsecondsPerCall(iterations: iterations, repeats: repeats, loopBudget: loopBudget) { rebuilt(value).dictionaryValue?.count ?? 0 }
    }

    /// The median, over `repeats` timed loops, of microseconds per call of `body`, whose results
    /// are summed into a black hole so that no call can be left out. Each loop makes `iterations`
    /// calls, fewer when one call (timed after a first, cold one) says the loop would take more
    /// than `loopBudget` nanoseconds (~100 ms in the table, so a slow path cannot make the run
    /// take minutes), and at least 5.
    private static func microsecondsPerCall(
        iterations: Int, repeats: Int, loopBudget: UInt64, _ body: () throws(BenchmarkError) -> Int
    ) throws(BenchmarkError) -> Double {
        var results = try body()
        let probe = MonotonicClock.now()
        results &+= try body()
        let loops = max(5, min(iterations, Int(loopBudget / max(1, MonotonicClock.now() - probe))))
        var perCall: [Double] = []
        for _ in 0..<repeats {
            let start = MonotonicClock.now()
            for _ in 0..<loops { results &+= try body() }
            perCall.append(Double(MonotonicClock.now() - start) / Double(loops) / 1000)
        }
        blackHole(results)
        return median(perCall)
    }

    /// Microseconds per ``SnapshotReader/refresh()`` when the file has not changed, on a real
    /// published file under `container`.
    static func unchanged(container: String, iterations: Int, repeats: Int) throws(BenchmarkError) -> Double {
        let group = "bench.unchanged"
        do {
            try SharedDefaults(suiteName: group, container: container).writeSnapshot(SampleSnapshots.snapshot(generation: 1, entitlements: 3))
        } catch {
            throw BenchmarkError("\(error)")
        }
        let reader = SnapshotReader(suiteName: group, container: container)
        guard case .updated = reader.refresh() else { throw BenchmarkError("the published snapshot was not read back") }
        var perRefresh: [Double] = []
        for _ in 0..<repeats {
            var unchanged = 0
            let start = MonotonicClock.now()
            for _ in 0..<iterations {
                if case .unchanged = reader.refresh() { unchanged &+= 1 }
            }
            let elapsed = MonotonicClock.now() - start
            guard unchanged == iterations else { throw BenchmarkError("the unchanged file was seen as changed") }
            perRefresh.append(Double(elapsed) / Double(iterations) / 1000)
        }
        return median(perRefresh)
    }

    /// The floor under ``unchanged(container:iterations:repeats:)``: the two raw `lstat` calls
    /// (directory, then file) it has to make, on the same paths, in microseconds.
    static func twoStats(container: String, iterations: Int, repeats: Int) -> Double {
        let directory = container + "/Library/Preferences", file = directory + "/bench.unchanged.plist"
        var perPair: [Double] = []
        for _ in 0..<repeats {
            var status = stat(), failures = 0
            let start = MonotonicClock.now()
            for _ in 0..<iterations {
                if lstat(directory, &status) != 0 { failures &+= 1 }
                if lstat(file, &status) != 0 { failures &+= 1 }
            }
            let elapsed = MonotonicClock.now() - start
            blackHole(failures)
            perPair.append(Double(elapsed) / Double(iterations) / 1000)
        }
        return median(perPair)
    }

    /// Microseconds per binary encode of the suite dictionary holding a one-entitlement snapshot
    /// (what ``SharedDefaults/publish(_:)`` encodes), the property-list value built outside the loop.
    static func encode(iterations: Int, repeats: Int) throws(BenchmarkError) -> Double {
        let suite = PropertyListValue.dictionary([EntitlementSnapshot.defaultsKey: SampleSnapshots.snapshot(generation: 3).propertyList])
        var perEncode: [Double] = []
        for _ in 0..<repeats {
            var bytes = 0
            let start = MonotonicClock.now()
            for _ in 0..<iterations {
                do { bytes &+= try PropertyListCodec.encode(suite, format: .binary).count } catch { throw BenchmarkError("encode: \(error)") }
            }
            let elapsed = MonotonicClock.now() - start
            blackHole(bytes)
            perEncode.append(Double(elapsed) / Double(iterations) / 1000)
        }
        return median(perEncode)
    }

    /// Microseconds per non-durable ``SharedDefaults/publish(_:)`` of a one-entitlement snapshot
    /// under `container` (a tmpfs such as `/dev/shm` to leave the disk out), each a new generation.
    static func publishNonDurable(container: String, iterations: Int, repeats: Int) throws(BenchmarkError) -> Double {
        let defaults = SharedDefaults(suiteName: "bench.publish", container: container, options: .init(durable: false))
        let issuedAt = Date()
        var generation: Int64 = 0
        var perPublish: [Double] = []
        for _ in 0..<repeats {
            let snapshots = (0..<iterations).map { _ in
                generation += 1
                return SampleSnapshots.snapshot(generation: generation, issuedAt: issuedAt)
            }
            let start = MonotonicClock.now()
            for snapshot in snapshots {
                do { try defaults.writeSnapshot(snapshot) } catch { throw BenchmarkError("publish: \(error)") }
            }
            perPublish.append(Double(MonotonicClock.now() - start) / Double(iterations) / 1000)
        }
        return median(perPublish)
    }

    /// Microseconds per ``SnapshotReader/refresh()`` that finds a new generation (a non-durable
    /// publish by another instance before each, outside the timed part), under `container`.
    static func refreshChanged(container: String, iterations: Int, repeats: Int) throws(BenchmarkError) -> Double {
        let group = "bench.changed"
        let defaults = SharedDefaults(suiteName: group, container: container, options: .init(durable: false))
        let reader = SnapshotReader(suiteName: group, container: container)
        let issuedAt = Date()
        var generation: Int64 = 0
        var perRefresh: [Double] = []
        for _ in 0..<repeats {
            var elapsed: UInt64 = 0, updated = 0
            for _ in 0..<iterations {
                generation += 1
                do { try defaults.writeSnapshot(SampleSnapshots.snapshot(generation: generation, issuedAt: issuedAt)) } catch {
                    throw BenchmarkError("publish: \(error)")
                }
                let start = MonotonicClock.now()
                if case .updated = reader.refresh() { updated &+= 1 }
                elapsed &+= MonotonicClock.now() - start
            }
            guard updated == iterations else { throw BenchmarkError("\(iterations - updated) new generations were not read") }
            perRefresh.append(Double(elapsed) / Double(iterations) / 1000)
        }
        return median(perRefresh)
    }

    /// Runs one cost (`check`, `decode1`, `decode100`, `decode1000`, `unchanged`, `encode`, `publish-tmpfs`,
    /// `refresh-changed`, `signatures` (the P-256 / P-384 verification rows without OpenSSL), or
    /// the quick `ingest` or `ingest-signed` run with its child processes) long enough to profile,
    /// printing its figure.
    static func profile(_ name: String, catalogPath: String) throws(BenchmarkError) {
        let value: Double
        switch name {
        case "check":
            value = featureCheck(gate: try WidgetEntryMaker(catalogPath: catalogPath).provider.gate, iterations: 10_000_000, repeats: 3)
        case "decode1":
            value = try decode(entitlements: 1, iterations: .max, repeats: 3, loopBudget: 1_700_000_000)
        case "decode100":
            value = try decode(entitlements: 100, iterations: .max, repeats: 3, loopBudget: 1_700_000_000)
        case "decode1000":
            value = try decode(entitlements: 1000, iterations: .max, repeats: 3, loopBudget: 1_700_000_000)
        case "unchanged":
            let root = try Workspace.make(under: "/tmp")
            defer { try? FileManager.default.removeItem(atPath: root) }
            value = try unchanged(container: root, iterations: 500_000, repeats: 3)
        case "encode":
            value = try encode(iterations: 200_000, repeats: 3)
        case "publish-tmpfs":
            let root = try Workspace.make(under: "/dev/shm")
            defer { try? FileManager.default.removeItem(atPath: root) }
            value = try publishNonDurable(container: root, iterations: 50_000, repeats: 3)
        case "refresh-changed":
            let root = try Workspace.make(under: "/dev/shm")
            defer { try? FileManager.default.removeItem(atPath: root) }
            value = try refreshChanged(container: root, iterations: 50_000, repeats: 3)
        case "ingest":
            let root = try Workspace.make(under: "/tmp")
            defer { try? FileManager.default.removeItem(atPath: root) }
            value = try BenchmarkPlan.quick.ingest.run(container: root + "/ingest", catalogPath: catalogPath).eventsPerSecond
        case "signatures":
            let outcome = try SignatureBenchmarks.measure(seconds: 3, runOpenSSL: false)
            print("signatures: P-256 \(outcome.p256VerificationsPerSecond)/s, P-384 \(outcome.p384VerificationsPerSecond)/s, P-256 keys \(outcome.p256KeysPerSecond)/s (per CPU s)")
            value = outcome.p256VerificationsPerSecond
        case "ingest-signed":
            let root = try Workspace.make(under: "/tmp")
            defer { try? FileManager.default.removeItem(atPath: root) }
            let outcome = try BenchmarkPlan.quick.verifiedIngest.run(container: root + "/ingest", catalogPath: catalogPath)
            print("ingest-signed: daemon \(outcome.daemonMicrosecondsPerEvent) µs of CPU per event")
            value = outcome.eventsPerSecond
        default:
            throw BenchmarkError(
                "unknown cost '\(name)' (check, checkfull, decode1, decode100, decode1000, unchanged, encode, publish-tmpfs, refresh-changed, ingest, ingest-signed, signatures)")
        }
        print("\(name): \(value)")
    }
}
