import Foundation

/// Fuzz target: the shared file's bytes, as every reader decodes them. The snapshot read in
/// place (what `SnapshotReader` does) against the snapshot read from the decoded tree: the same
/// schema over two readings of one accepted file must agree; property-list decoding (binary and
/// XML), an XML and a binary round trip of what decoded, the snapshot's validation, then what `status`
/// and the feature gate do with an accepted snapshot (JSON with ISO 8601 dates, a feature check
/// at a fixed instant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    checkSuiteReadingsAgree(bytes)
    guard let root = try? PropertyListCodec.decode(bytes) else { return 0 }
    checkRoundTrip(root, format: .xml)
    checkRoundTrip(root, format: .binary)
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

/// `EntitlementSnapshot.decode(fromSuiteBytes:)` and the tree reading of the same bytes accept
/// the same files with the same snapshot and refuse the rest for the same reason (when several
/// entries are bad, the tree names whichever its dictionary iteration meets first).
func checkSuiteReadingsAgree(_ bytes: [UInt8]) {
    let inPlace: Result<EntitlementSnapshot, SnapshotFileDecodingError>
    do { inPlace = .success(try EntitlementSnapshot.decode(fromSuiteBytes: bytes)) } catch { inPlace = .failure(error) }
    let tree: Result<EntitlementSnapshot, SnapshotFileDecodingError>
    do { tree = .success(try EntitlementSnapshot.decodeThroughValues(fromSuiteBytes: bytes)) } catch { tree = .failure(error) }
    switch (inPlace, tree) {
    case (.failure(.snapshot(.invalidField)), .failure(.snapshot(.invalidField))): return
    default: guard inPlace == tree else { fatalError("in-place \(inPlace) but tree \(tree)") }
    }
}
