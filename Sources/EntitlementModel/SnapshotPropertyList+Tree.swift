#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// A decoded ``PropertyListValue`` tree, as ``SnapshotSchema`` reads it: what
/// ``EntitlementSnapshot/init(propertyList:)`` and XML suite files go through.
struct SnapshotTree: SnapshotPropertyList {
    func forEachField<Name: SnapshotFieldName>(of object: PropertyListValue, as: Name.Type, _ body: (Int, PropertyListValue) -> Void) -> Bool {
        guard case .dictionary(let entries) = object else { return false }
        for name in Name.allCases {
            if let value = entries[name.rawValue] { body(name.position, value) }
        }
        return true
    }

    func entryCount(of object: PropertyListValue) -> Int? { object.dictionaryValue?.count }

    func forEachEntry(of object: PropertyListValue, _ body: (String, PropertyListValue) throws(SnapshotDecodingError) -> Void) throws(SnapshotDecodingError) {
        guard case .dictionary(let entries) = object else { return }
        for (key, value) in entries { try body(key, value) }
    }

    func name<Name: SnapshotName>(_ object: PropertyListValue) -> Name? { object.stringValue.flatMap(Name.init(rawValue:)) }
    func boolean(_ object: PropertyListValue) -> Bool? { object.boolValue }
    func integer(_ object: PropertyListValue) -> Int64? { if case .integer(let value) = object { value } else { nil } }
    func real(_ object: PropertyListValue) -> Double? { if case .real(let value) = object { value } else { nil } }
    func date(_ object: PropertyListValue) -> Date? { object.dateValue }
    func string(_ object: PropertyListValue) -> String? { object.stringValue }
    func strings(_ object: PropertyListValue) -> [String]? {
        guard case .array(let items) = object else { return nil }
        var strings: [String] = []
        for item in items {
            guard let string = item.stringValue else { return nil }
            strings.append(string)
        }
        return strings
    }
    /// The identity is where a string's storage is: one `String` shared by several values of
    /// the tree (as the binary decoder makes a shared string object) has one. A small string
    /// (at most 15 bytes) or one not stored as UTF-8 is read from a copy, with no identity.
    func withUTF8<Result>(ofString object: PropertyListValue, _ body: (UnsafeBufferPointer<UInt8>, Int?) -> Result) -> Result? {
        guard var string = object.stringValue else { return nil }
        if string.utf8.count > 15,
            let answer = string.utf8.withContiguousStorageIfAvailable({ body($0, $0.baseAddress.map { Int(bitPattern: $0) }) })
        {
            return answer
        }
        return string.withUTF8 { body($0, nil) }
    }
    func kindInWords(_ object: PropertyListValue) -> String { object.kindInWords }
}
