/// How much of everything one run measures.
struct BenchmarkPlan: Sendable {
    var propagationRounds: Int
    /// Floor and package alternate in this many blocks each, so both see the same machine state.
    var propagationBlocks: Int
    var fanoutRounds: Int
    /// Rounds of each publish → entry row at 1, 10, 100 and 1,000 entitlements (and of its floor).
    var sizedRounds: Int
    /// Purchases of the purchase → widget entry row.
    var purchaseRounds: Int
    /// Purchases of the companion row (phone ingest → the watch's entry) and the events of its
    /// catch-up row.
    var companionRounds: Int
    var catchUpEvents: Int
    /// The reader counts of the fan-out rows (nominal 1, 8, 64; fewer only in the smoke plan).
    var fanoutReaders: [(nominal: Int, actual: Int)]
    var peerRounds: Int
    var pingPongRounds: Int
    var checkIterations: Int
    var decodeIterations: Int
    var unchangedIterations: Int
    var costRepeats: Int
    var ingest: IngestBenchmark
    var singleEventIngest: IngestBenchmark
    /// Durable ingest of JWS transactions, each verified by `ingest` and again by the daemon.
    var verifiedIngest: IngestBenchmark
    var idleSeconds: Double
    var renderRuns: Int
    /// CPU seconds each signature-verification row runs.
    var signatureSeconds: Double
    /// Whether `openssl speed` runs beside the verification rows (about 4 s).
    var runOpenSSL: Bool

    /// The full run (a few minutes on 2 cores).
    static let full = BenchmarkPlan(
        propagationRounds: 2000, propagationBlocks: 4, fanoutRounds: 500, sizedRounds: 400, purchaseRounds: 200, companionRounds: 100, catchUpEvents: 10_000, fanoutReaders: [(1, 1), (8, 8), (64, 64)],
        peerRounds: 400, pingPongRounds: 20_000, checkIterations: 2_000_000, decodeIterations: 2000, unchangedIterations: 50_000,
        costRepeats: 7, ingest: IngestBenchmark(producers: 2, calls: 200, batch: 100),
        singleEventIngest: IngestBenchmark(producers: 2, calls: 250, batch: 1),
        verifiedIngest: IngestBenchmark(producers: 2, calls: 100, batch: 100, signed: true), idleSeconds: 2, renderRuns: 20,
        signatureSeconds: 2, runOpenSSL: true)

    /// `--quick`: under a minute on 2 cores.
    static let quick = BenchmarkPlan(
        propagationRounds: 300, propagationBlocks: 2, fanoutRounds: 120, sizedRounds: 100, purchaseRounds: 50, companionRounds: 30, catchUpEvents: 10_000, fanoutReaders: [(1, 1), (8, 8), (64, 64)],
        peerRounds: 100, pingPongRounds: 5000, checkIterations: 500_000, decodeIterations: 300, unchangedIterations: 10_000,
        costRepeats: 5, ingest: IngestBenchmark(producers: 2, calls: 25, batch: 100),
        singleEventIngest: IngestBenchmark(producers: 2, calls: 50, batch: 1),
        verifiedIngest: IngestBenchmark(producers: 2, calls: 25, batch: 100, signed: true), idleSeconds: 1, renderRuns: 5,
        signatureSeconds: 1, runOpenSSL: true)

    /// `--smoke` (hidden): tiny sizes and at most 4 fan-out readers, only to prove the output's
    /// shape in tests. Its numbers mean nothing. Three propagation blocks make the package reader
    /// start on an existing file, as in the full plan.
    static let smoke = BenchmarkPlan(
        propagationRounds: 12, propagationBlocks: 3, fanoutRounds: 5, sizedRounds: 4, purchaseRounds: 2, companionRounds: 2, catchUpEvents: 20, fanoutReaders: [(1, 1), (8, 2), (64, 4)],
        peerRounds: 5, pingPongRounds: 100, checkIterations: 1000, decodeIterations: 10, unchangedIterations: 100,
        costRepeats: 1, ingest: IngestBenchmark(producers: 1, calls: 2, batch: 10),
        singleEventIngest: IngestBenchmark(producers: 1, calls: 2, batch: 1),
        verifiedIngest: IngestBenchmark(producers: 1, calls: 1, batch: 5, signed: true), idleSeconds: 0.2, renderRuns: 1,
        signatureSeconds: 0.05, runOpenSSL: false)
}
