import Foundation

/// Fuzz target: the shared file's bytes, as every reader decodes them
/// (`EntitlementSnapshot.decode(fromSuiteBytes:)`, what `SnapshotReader` does); property-list
/// decoding (binary and XML), an XML and a binary round trip of what decoded, the snapshot's
/// validation, then what `status` and the feature gate do with an accepted snapshot (JSON with
/// ISO 8601 dates, a feature check at a fixed instant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let suiteSnapshot = try? EntitlementSnapshot.decode(fromSuiteBytes: bytes)
    guard let root = try? PropertyListCodec.decode(bytes) else { return 0 }
    checkRoundTrip(root, format: .xml)
    checkRoundTrip(root, format: .binary)
    let value = root.dictionaryValue?[EntitlementSnapshot.defaultsKey] ?? root
    guard let snapshot = try? EntitlementSnapshot(propertyList: value) else { return 0 }
    if let suiteSnapshot, suiteSnapshot != snapshot { fatalError("the suite file's snapshot is not its value's") }
    _ = snapshot.json.serialized
    _ = snapshot.propertyList
    if let catalog = fuzzCatalog {
        for feature in ["widgets", "habits", "history", "watchApp"] {
            _ = catalog.featureGate.check(feature, snapshot: snapshot, wallClock: fuzzNow, currentCount: 2)
        }
    }
    return 0
}

/// A codec on whatever decoded (binary or XML): our output of the value in `format` must read
/// back, and writing what was read must give the same bytes again (binary output is canonical;
/// in XML dates lose their fraction once, then are stable). A value the format cannot hold (a
/// date XML cannot write, a binary date that is not finite) is skipped.
func checkRoundTrip(_ value: PropertyListValue, format: PropertyListCodec.Format) {
    guard let first = try? PropertyListCodec.encode(value, format: format) else { return }
    let decoded: PropertyListValue
    do { decoded = try PropertyListCodec.decode(first) } catch { fatalError("our \(format) output was refused: \(error)") }
    guard let second = try? PropertyListCodec.encode(decoded, format: format), second == first else {
        fatalError("\(format) output of a decoded value is not stable")
    }
}
