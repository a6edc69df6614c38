import Foundation

/// Fuzz target: one JSON line as `ingest` and the daemon decode it (transactions, renewal info,
/// server notifications with JWS payloads), the catalog check, then the engine on what was
/// accepted and the snapshot it would publish.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let catalog = fuzzCatalog, let events = try? EventDecoder.decode(line: fuzzBytes(data, size), signatures: catalog.signatures) else { return 0 }
    var facts = FactStore()
    for event in events where (try? catalog.validate(event)) != nil { facts.insert(event) }
    let result = EntitlementEngine(catalog: catalog).evaluate(facts, now: fuzzNow, floor: nil)
    let snapshot = result.snapshot(generation: 1)
    _ = snapshot.json.serialized
    _ = try? EntitlementSnapshot(propertyList: snapshot.propertyList)
    return 0
}
