import Foundation

// Shared by every fuzz target: the package's default catalog, read once from
// $FUZZ_SHARED_DIR (Fuzz/run.sh sets it to the package's Shared/ directory).

/// The directory holding Catalog.json and Geko.storekit.
let fuzzSharedDirectory = ProcessInfo.processInfo.environment["FUZZ_SHARED_DIR"] ?? "Shared"

/// Bytes of a file in the shared directory; an empty `Data` if it cannot be read (the target
/// then exercises the error path, which is still worth fuzzing).
func fuzzSharedFile(_ name: String) -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: fuzzSharedDirectory + "/" + name))) ?? Data()
}

/// The default catalog, or `nil` when Shared/ is missing (every target checks).
let fuzzCatalog: Catalog? = try? Catalog(
    catalogJSON: Array(fuzzSharedFile("Catalog.json")), storeKitJSON: Array(fuzzSharedFile("Geko.storekit")),
    catalogPath: fuzzSharedDirectory + "/Catalog.json")

/// A fixed instant, so a run is reproducible: 2026-11-22T00:00:00Z.
let fuzzNow = Date(timeIntervalSince1970: 1_795_305_600)

/// The input as an array, for decoders that take one.
func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}
