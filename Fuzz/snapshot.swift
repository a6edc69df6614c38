import Foundation

/// Fuzz target: the shared file's bytes, as every reader decodes them. Property-list decoding
/// (binary and XML), the snapshot's validation, then what `status` and the feature gate do with
/// an accepted snapshot (JSON with ISO 8601 dates, a feature check at a fixed instant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let root = try? PropertyListCodec.decode(fuzzBytes(data, size)) else { return 0 }
    let value = root.dictionaryValue?[EntitlementSnapshot.defaultsKey] ?? root
    guard let snapshot = try? EntitlementSnapshot(propertyList: value) else { return 0 }
    _ = snapshot.json.serialized
    _ = snapshot.propertyList
    if let catalog = fuzzCatalog {
        for feature in ["widgets", "habits", "history", "watchApp"] {
            _ = catalog.featureGate.check(feature, snapshot: snapshot, wallClock: fuzzNow, currentCount: 2)
        }
    }
    return 0
}
