import Foundation

/// Fuzz target: `Catalog.json` bytes, decoded against the package's real `.storekit` file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalogJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let catalog = try? Catalog(catalogJSON: bytes, storeKitJSON: Array(fuzzSharedFile("Geko.storekit")), catalogPath: "/fuzz/Catalog.json")
    else { return 0 }
    _ = EntitlementEngine(catalog: catalog).evaluate(FactStore(), now: fuzzNow, floor: nil)
    return 0
}
