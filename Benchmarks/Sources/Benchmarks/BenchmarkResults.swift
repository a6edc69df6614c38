/// Everything one run measured. A `nil` value means the step did not run; `errors` says why.
struct BenchmarkResults {
    /// Write-start to entry-ready through the package, and write-start to file-read through raw
    /// Glibc, for one durability mode.
    struct Propagation {
        var directory = ""
        var package: LatencySummary?
        var floor: LatencySummary?
        var packageMisses = 0
        var floorMisses = 0
        /// Wake-ups per write per reader (see ``PropagationRun/Outcome/wakeUpsPerWrite``).
        var packageWakeUps: Double?
        var floorWakeUps: Double?
        /// CPU µs per write of the reader and of the writer (see ``PropagationRun/Outcome``),
        /// averaged over the blocks.
        var packageReaderCPU: Double?
        var floorReaderCPU: Double?
        var packageWriterCPU: Double?
        var floorWriterCPU: Double?
    }

    /// Publish → widget entry with a snapshot of `entitlements` entitlements (tmpfs, one reader),
    /// beside the raw floor moving a file of the same size.
    struct SizedPropagation {
        var entitlements: Int
        var fileBytes: Int
        var package: LatencySummary?
        var floor: LatencySummary?
        var misses = 0
    }

    /// One fan-out row: the slowest of `readers` package readers in each round.
    struct Fanout {
        var nominal: Int
        var readers: Int
        var lastReader: LatencySummary?
        var misses = 0
        var rounds = 0
        /// The same fan-out with raw floor readers (blocked `read` on inotify, then read the file)
        /// and the raw durable writer: what the kernel and the scheduler cost for this many processes.
        var floorLastReader: LatencySummary?
        /// Wake-ups per publish per reader, package and floor readers.
        var wakeUps: Double?
        var floorWakeUps: Double?
        /// On-CPU µs per publish per reader (user and kernel), package and floor readers: on a
        /// machine with fewer cores than readers, the last reader's latency is about their sum.
        var readerCPU: Double?
        var floorReaderCPU: Double?
    }

    /// A peer reader strategy.
    struct Peer {
        var latency: LatencySummary?
        var rounds = 0
        var misses = 0
    }

    var mode = "full"
    var durable = Propagation()
    var tmpfs = Propagation()
    var pipeOneWay: LatencySummary?
    var fanoutDirectory = ""
    var fanout: [Fanout] = []
    var sized: [SizedPropagation] = []
    var purchase: PurchaseBenchmark.Outcome?
    var companion: CompanionBenchmark.Outcome?
    var statPoller = Peer()
    var userDefaults = Peer()
    /// Per `FeatureGate.check` (the decision with its paywall: what a widget calls).
    var checkNanoseconds: Double?
    /// Entitlement count → microseconds.
    var decodeMicroseconds: [Int: Double] = [:]
    /// Entitlement count → microseconds to build and free the same value's containers (the floor of a decode).
    var valueTreeFloorMicroseconds: [Int: Double] = [:]
    var unchangedMicroseconds: Double?
    /// Two raw `lstat` calls on the same paths (µs): the floor of the unchanged check.
    var twoStatsMicroseconds: Double?
    /// ECDSA verifications per CPU second, ours and `openssl speed`'s.
    var signatures: SignatureBenchmarks.Outcome?
    var ingest: IngestBenchmark.Outcome?
    var singleEventIngest: IngestBenchmark.Outcome?
    var verifiedIngest: IngestBenchmark.Outcome?
    var daemonMemory: Double?
    var daemonTool = ""
    var renderMilliseconds: [Double] = []
    var rendererTool = ""
    /// The process floor: resident memory (MiB) when idle, and spawn-to-exit times (ms) taken
    /// between the renderer's runs.
    var processFloorMemory: Double?
    var processFloorMilliseconds: [Double] = []
    var errors: [String] = []

    var renderMedian: Double? { renderMilliseconds.isEmpty ? nil : median(renderMilliseconds) }
    var processFloorMedian: Double? { processFloorMilliseconds.isEmpty ? nil : median(processFloorMilliseconds) }
}
