import Entitlements
import StoreKitFormats
import Foundation

/// `--role profile decode-signed [events]`: what the daemon does per verified event, on one
/// thread and in process, so that `valgrind --tool=callgrind` or `perf` sees it without the
/// file I/O, the journal and the other processes of the `verified durable ingest` row.
///
/// Decodes the benchmark's own JWS transactions (``BenchmarkJWSSigner``, the test chain, a
/// Production catalog that requires signatures and trusts the test root) as the daemon decodes
/// each line of an inbox file: `EventDecoder.decode(line:signatures:)`, then the catalog's check
/// of every event.
/// The chain and header caches fill on the first line, as in a running daemon; every payload and
/// signature is verified afresh. Prints microseconds of this thread's CPU per event.
enum VerifiedDecodeProfile {
    static func run(events: Int, catalogPath: String) throws(BenchmarkError) -> Double {
        let root = try Workspace.make(under: "/tmp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vectors = IngestBenchmark.vectorsDirectory(catalogPath: catalogPath)
        let signedCatalogPath = try IngestBenchmark.signedCatalog(from: catalogPath, vectors: vectors, container: root + "/profile")
        let catalog: Catalog
        do { catalog = try Catalog.load(path: signedCatalogPath) } catch { throw BenchmarkError("\(signedCatalogPath): \(error)") }
        let signer = try BenchmarkJWSSigner(vectors: vectors)
        let now = Date()
        let fileSize = 100
        let files = (0..<max(1, events / fileSize)).map { file in
            (0..<fileSize).map { item in
                signer.sign(
                    IngestBenchmark.transactionLine(
                        id: "profile-\(file)-\(item)", purchased: now.addingTimeInterval(-86_400), expires: now.addingTimeInterval(30 * 86_400),
                        environment: "Production"))
            }
        }
        var decoded = 0
        let start = SignatureBenchmarks.threadCPUSeconds()
        for (index, lines) in files.enumerated() {
            for line in lines {
                do {
                    for event in try EventDecoder.decode(line: line.utf8, signatures: catalog.signatures) { try catalog.validate(event) }
                    decoded += 1
                } catch {
                    throw BenchmarkError("decode-signed: profile-\(index): \(error)")
                }
            }
        }
        let elapsed = SignatureBenchmarks.threadCPUSeconds() - start
        guard decoded == files.count * fileSize else { throw BenchmarkError("decode-signed: \(decoded) of \(files.count * fileSize) lines decoded") }
        return elapsed * 1e6 / Double(decoded)
    }
}
