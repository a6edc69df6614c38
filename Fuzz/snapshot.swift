import Foundation

/// Fuzz target: the shared file's bytes, as every reader decodes them. Property-list decoding
/// (binary and XML) and an XML round trip of what decoded, the snapshot's validation, then
/// what `status` and the feature gate do with an accepted snapshot (JSON with ISO 8601 dates, a
/// feature check at a fixed instant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let root = try? PropertyListCodec.decode(fuzzBytes(data, size)) else { return 0 }
    checkXMLRoundTrip(root)
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

/// The XML codec on whatever decoded (binary or XML): our XML of the value must read back, and
/// writing what was read must give the same bytes again (dates lose their fraction once, then
/// are stable). A value XML cannot hold (a date beyond ±999,999 years) is skipped.
func checkXMLRoundTrip(_ value: PropertyListValue) {
    guard let first = try? PropertyListCodec.encode(value, format: .xml) else { return }
    let decoded: PropertyListValue
    do { decoded = try PropertyListCodec.decode(first) } catch { fatalError("our XML output was refused: \(error)") }
    guard let second = try? PropertyListCodec.encode(decoded, format: .xml), second == first else {
        fatalError("XML output of a decoded value is not stable")
    }
}
