import Foundation

/// Fuzz target: Xcode `.storekit` bytes, decoded with the package's real `Catalog.json`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreKit(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let catalog = try? Catalog(catalogJSON: Array(fuzzSharedFile("Catalog.json")), storeKitJSON: bytes, catalogPath: "/fuzz/Catalog.json")
    else { return 0 }
    _ = EntitlementEngine(catalog: catalog).evaluate(FactStore(), now: fuzzNow, floor: nil)
    return 0
}
