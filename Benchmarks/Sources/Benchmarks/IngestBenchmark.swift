import EntitlementDefaults
import Broker
import Entitlements
import StoreKitFormats
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// Durable ingest throughput with group commit.
///
/// What is counted: `producers` helper processes (role `ingest-producer`) each make `calls`
/// ``IngestClient/enqueue(_:source:)`` calls of `batch` new StoreKit transactions (each call
/// validates its lines and queues them as one fsynced inbox file: what `entitlementctl ingest`
/// does). A running `entitlementd` drains whatever is queued when it wakes, appends it to the
/// journal with one fsync per drain (group commit), publishes one durable snapshot per drain and
/// deletes the files. The clock starts when the producers are released (all already started and
/// holding their validated-in-advance lines) and stops when the inbox is empty again, i.e. every
/// event is journaled, published and acknowledged. Events per second = all events / that time.
///
/// `signed`: every event is a bare JWS transaction (ES256, the three-certificate test chain of the
/// JWS test vectors, ``BenchmarkJWSSigner``) under a Production catalog that requires signatures
/// and trusts the test root: `ingest` verifies each line before queueing it and the daemon
/// verifies it again when it drains it, the chain once per process (the verified-chain cache).
struct IngestBenchmark {
    var producers: Int
    var calls: Int
    var batch: Int
    var signed = false

    struct Outcome {
        var events: Int
        /// Events per enqueue call.
        var batch: Int
        var seconds: Double
        var eventsPerSecond: Double { Double(events) / seconds }
        /// The daemon's resident memory after the run (MiB).
        var daemonMemory: Double
        /// CPU time (user + system) the daemon spent between the start and the end of the clock (s).
        var daemonCPUSeconds: Double
        /// Daemon CPU per event (µs): where the time goes when the rate is below target.
        var daemonMicrosecondsPerEvent: Double { daemonCPUSeconds * 1e6 / Double(events) }
    }

    /// User + system CPU time of process `pid` so far (s), from `/proc/<pid>/stat`.
    static func cpuSeconds(pid: pid_t) throws(BenchmarkError) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { throw BenchmarkError("cannot read /proc/\(pid)/stat") }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchmarkError("unexpected /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func run(container: String, catalogPath defaultCatalogPath: String) throws(BenchmarkError) -> Outcome {
        let vectors = Self.vectorsDirectory(catalogPath: defaultCatalogPath)
        let catalogPath = signed ? try Self.signedCatalog(from: defaultCatalogPath, vectors: vectors, container: container) : defaultCatalogPath
        let daemon = try DaemonBenchmarks.startDaemon(container: container, catalogPath: catalogPath)
        defer { daemon.stop() }
        let channel = try ReportPipe()
        var children: [SpawnedProcess] = []
        var goPipes: [Int32] = []
        defer {
            for descriptor in goPipes { close(descriptor) }
            for child in children { child.stop() }
        }
        for index in 0..<producers {
            let go = try makePipe()
            goPipes.append(go.write)
            let arguments = [
                "--role", "ingest-producer", "--container", container, "--catalog", catalogPath, "--index", String(index),
                "--calls", String(calls), "--batch", String(batch), "--signed", signed ? vectors : "",
            ]
            let child = try SpawnedProcess(executable: SelfExecutable.path, arguments: arguments, standardInput: go.read, standardOutput: channel.writeEnd)
            close(go.read)
            children.append(child)
        }
        var ready = 0
        let readyDeadline = MonotonicClock.now() + 30_000_000_000
        while ready < producers {
            guard let report = channel.nextReport(deadline: readyDeadline) else { throw BenchmarkError("ingest producers did not start") }
            if report.generation == 0 { ready += 1 }
        }
        let cpuAtStart = try Self.cpuSeconds(pid: daemon.pid)
        let start = MonotonicClock.now()
        var byte: UInt8 = 1
        for descriptor in goPipes { _ = write(descriptor, &byte, 1) }
        var finished = 0
        let deadline = start + 600_000_000_000
        while finished < producers {
            guard let report = channel.nextReport(deadline: deadline) else { throw BenchmarkError("ingest producers did not finish") }
            if report.generation < 0 { throw BenchmarkError("ingest producer \(report.reader) failed") }
            if report.generation == 1 { finished += 1 }
        }
        let inbox = ContainerLayout(container: container, group: DaemonBenchmarks.group).inboxDirectory
        while true {
            if try InboxBacklog.count(inbox) == 0 { break }
            guard daemon.isRunning, MonotonicClock.now() < deadline else { throw BenchmarkError("entitlementd did not drain the inbox") }
            usleep(500)
        }
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        // An emptied inbox counts only if the daemon accepted every file rather than refusing some.
        let layout = ContainerLayout(container: container, group: DaemonBenchmarks.group)
        let refused = (try? FileManager.default.contentsOfDirectory(atPath: layout.rejectedDirectory)) ?? []
        guard refused.isEmpty else { throw BenchmarkError("entitlementd refused \(refused.count) inbox files (see \(layout.rejectedDirectory))") }
        let cpu = try Self.cpuSeconds(pid: daemon.pid) - cpuAtStart
        let memory = try DaemonBenchmarks.residentMemory(pid: daemon.pid)
        return Outcome(events: producers * calls * batch, batch: batch, seconds: elapsed, daemonMemory: memory, daemonCPUSeconds: cpu)
    }

    /// The producer helper: prepares its lines, says it is ready, waits for one byte on standard
    /// input, makes its enqueue calls, then reports generation 1 (or -1 on failure).
    /// `signedVectors`: the JWS test vectors directory when the lines are to be signed, else empty.
    static func runProducer(container: String, catalogPath: String, index: Int, calls: Int, batch: Int, signedVectors: String) -> Never {
        do {
            let catalog = try Catalog.load(path: catalogPath)
            let client = IngestClient(layout: ContainerLayout(container: container, group: DaemonBenchmarks.group), catalog: catalog)
            let now = Date()
            let signer = signedVectors.isEmpty ? nil : try BenchmarkJWSSigner(vectors: signedVectors)
            let batches = (0..<calls).map { call in
                (0..<batch).map { item in
                    let line = transactionLine(
                        id: "bench-\(getpid())-\(index)-\(call)-\(item)", purchased: now.addingTimeInterval(-86_400),
                        expires: now.addingTimeInterval(30 * 86_400), environment: signer == nil ? "Xcode" : "Production")
                    return signer?.sign(line) ?? line
                }
            }
            ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0)
            var byte: UInt8 = 0
            guard read(0, &byte, 1) == 1 else { exit(0) }
            for lines in batches { _ = try client.enqueue(lines, source: "bench") }
            ReportPipe.emit(reader: index, generation: 1, nanoseconds: MonotonicClock.now())
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("ingest-producer: \(error)\n".utf8))
            ReportPipe.emit(reader: index, generation: -1, nanoseconds: 0)
            exit(1)
        }
    }

    /// The package's JWS test vectors, found from the default catalog (`Shared/Catalog.json`).
    static func vectorsDirectory(catalogPath: String) -> String {
        URL(fileURLWithPath: catalogPath).standardized.deletingLastPathComponent().deletingLastPathComponent().path
            + "/Tests/JWSVerificationTests/Vectors"
    }

    /// Writes, beside `container`, the default catalog turned into a Production one (signatures
    /// required by default) that trusts the test root; returns its path.
    static func signedCatalog(from catalogPath: String, vectors: String, container: String) throws(BenchmarkError) -> String {
        let source = URL(fileURLWithPath: catalogPath).standardized
        guard let data = try? Data(contentsOf: source),
            var catalog = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let storeKit = catalog["storekit"] as? String
        else { throw BenchmarkError("\(catalogPath): cannot be read as a catalog") }
        catalog["storekit"] = source.deletingLastPathComponent().appendingPathComponent(storeKit).path
        catalog["environment"] = "Production"
        catalog["trustedRoots"] = [vectors + "/tampered/test-root.pem"]
        let path = container + "-Catalog.json"
        guard let json = try? JSONSerialization.data(withJSONObject: catalog), (try? json.write(to: URL(fileURLWithPath: path))) != nil else {
            throw BenchmarkError("\(path): cannot be written")
        }
        return path
    }

    /// A StoreKit 2 monthly subscription transaction for the default catalog.
    /// `revoked`: the refund of that transaction (signed then, with `revocationDate`).
    static func transactionLine(id: String, purchased: Date, expires: Date, environment: String = "Xcode", revoked: Date? = nil) -> String {
        func milliseconds(_ date: Date) -> JSONValue { .double((date.timeIntervalSince1970 * 1000).rounded()) }
        var fields: [String: JSONValue] = [
            "transactionId": .string(id), "originalTransactionId": .string(id), "productId": "com.irenews.geko.plus.monthly",
            "purchaseDate": milliseconds(purchased), "signedDate": milliseconds(revoked ?? purchased), "expiresDate": milliseconds(expires),
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "environment": .string(environment),
            "bundleId": "com.irenews.geko",
        ]
        if let revoked { fields["revocationDate"] = milliseconds(revoked) }
        return JSONValue.object(fields).serialized
    }
}
