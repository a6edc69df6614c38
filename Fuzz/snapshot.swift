import Foundation

/// Fuzz target: the shared file's bytes, as every reader decodes them. The snapshot read in
/// place (what `SnapshotReader` does) against the snapshot read from the decoded tree: the same
/// schema over two readings of one accepted file must agree; property-list decoding (binary and
/// XML), an XML and a binary round trip of what decoded, the snapshot's validation, then what `status`
/// and the feature gate do with an accepted snapshot (JSON with ISO 8601 dates, a feature check
/// and a prepared check at a fixed instant).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    checkSuiteReadingsAgree(bytes)
    guard let root = try? PropertyListCodec.decode(bytes) else { return 0 }
    checkXMLRoundTrip(root)
    checkBinaryRoundTrip(root)
    let value = root.dictionaryValue?[EntitlementSnapshot.defaultsKey] ?? root
    guard let snapshot = try? EntitlementSnapshot(propertyList: value) else { return 0 }
    _ = snapshot.json.serialized
    _ = snapshot.propertyList
    if let catalog = fuzzCatalog {
        for feature in ["widgets", "habits", "history", "watchApp"] {
            let decision = catalog.featureGate.check(feature, snapshot: snapshot, wallClock: fuzzNow, currentCount: 2)
            let prepared = catalog.featureGate.prepared(for: snapshot).isUnlocked(feature, at: fuzzNow, currentCount: 2)
            guard prepared == decision.isUnlocked else { fatalError("prepared check of \(feature) disagrees with check") }
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

/// The binary encoder on whatever decoded: its output must read back, and writing what was read
/// must give the same bytes again (the output is canonical). A value it refuses (a date that is
/// not finite) is skipped.
func checkBinaryRoundTrip(_ value: PropertyListValue) {
    guard let first = try? PropertyListCodec.encode(value, format: .binary) else { return }
    let decoded: PropertyListValue
    do { decoded = try PropertyListCodec.decode(first) } catch { fatalError("our binary output was refused: \(error)") }
    guard let second = try? PropertyListCodec.encode(decoded, format: .binary), second == first else {
        fatalError("binary output of a decoded value is not canonical")
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
