#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// A binary file the validating walk accepted, as ``SnapshotSchema`` reads it, in place: no
/// ``PropertyListValue`` is built.
///
/// A writer stores each key string and each enumeration value once and every entry references
/// it, so what a string object means (which entry field, which state…) is worked out once per
/// object and remembered in a per-object table, not compared again for every entry, and entries
/// with the very same key objects reuse the first one's field names by position. Product ids
/// are read as the bytes they are (``withUTF8(ofString:_:)``), with no `String` per entry.
struct SnapshotInPlace: SnapshotPropertyList {
    typealias Object = AcceptedBinaryPropertyList.Object
    private let file: AcceptedBinaryPropertyList
    /// Per object, ``columns`` bytes: one per ``SnapshotName/rememberedIn`` column (0 not yet
    /// resolved, ``unknown`` not one of that name's texts, else the case's position + 1).
    private let resolved: UnsafeMutablePointer<UInt8>
    /// The last dictionary read with a remembered ``SnapshotName`` (and that name's column),
    /// whose keys' names by position are in ``fieldCodes``.
    private let last: UnsafeMutablePointer<LastFields>
    /// Per position of ``last``'s dictionary: its key's name's position + 1, 0 if not a name.
    private let fieldCodes: UnsafeMutablePointer<UInt8>

    private struct LastFields {
        var dictionary: AcceptedBinaryPropertyList.DictionaryObject?
        var column: Int
    }

    /// The most keys a dictionary may have for its names by position to be remembered.
    private static let cachedPositions = 16

    private static let unknown: UInt8 = 0xFF
    private static let columns = 4

    /// Runs `body` with a reader over `file`, its memory freed afterwards.
    static func withReader<Result>(_ file: AcceptedBinaryPropertyList, _ body: (SnapshotInPlace) -> Result) -> Result {
        var last = LastFields(dictionary: nil, column: -1)
        return withUnsafeMutablePointer(to: &last) { last in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: columns * file.objectCount + cachedPositions) { storage in
                let base = storage.baseAddress!  // capacity is at least `cachedPositions`
                base.initialize(repeating: 0, count: storage.count)
                return body(SnapshotInPlace(file: file, resolved: base, last: last, fieldCodes: base + columns * file.objectCount))
            }
        }
    }

    @inline(__always) func forEachField<Name: SnapshotFieldName>(of object: Object, as: Name.Type, _ body: (Int, Object) -> Void) -> Bool {
        guard let dictionary = file.dictionary(object) else { return false }
        guard let column = Name.rememberedIn, dictionary.count <= Self.cachedPositions else {
            for position in 0..<dictionary.count {
                if let name: Name = name(file.key(position, of: dictionary)) { body(name.position, file.value(position, of: dictionary)) }
            }
            return true
        }
        // Entries of one shape share their key objects: the names by position are worked out
        // for the first and reused while the next dictionary has the very same key references.
        if !(last.pointee.column == column && last.pointee.dictionary.map({ file.hasSameKeys(dictionary, as: $0) }) == true) {
            rememberFields(of: dictionary, as: Name.self, column: column)
        }
        // One loop per reference width, so that reading a value is a load, not a switch per field.
        switch file.referenceWidth {
        case 1: fields(of: dictionary, body)
        case 2: fields(of: dictionary, body)
        default: fields(of: dictionary, body)
        }
        return true
    }

    /// Calls `body` with the name's position and the value of each key of `dictionary` named in
    /// ``fieldCodes``; inlined under each case of a switch on the reference width.
    @inline(__always) private func fields(of dictionary: AcceptedBinaryPropertyList.DictionaryObject, _ body: (Int, Object) -> Void) {
        for position in 0..<dictionary.count where fieldCodes[position] != 0 {
            body(Int(fieldCodes[position]) &- 1, file.value(position, of: dictionary))
        }
    }

    /// Works out the names of `dictionary`'s keys by position into ``fieldCodes`` (each name's
    /// ``SnapshotFieldName/position`` + 1, 0 for a key that is not a name).
    private func rememberFields<Name: SnapshotFieldName>(of dictionary: AcceptedBinaryPropertyList.DictionaryObject, as: Name.Type, column: Int) {
        for position in 0..<dictionary.count {
            let name: Name? = name(file.key(position, of: dictionary))
            fieldCodes[position] = name.map { UInt8($0.position + 1) } ?? 0
        }
        last.pointee = LastFields(dictionary: dictionary, column: column)
    }

    func entryCount(of object: Object) -> Int? { file.dictionary(object)?.count }

    @inline(__always) func forEachEntry(of object: Object, _ body: (String, Object) throws(SnapshotDecodingError) -> Void) throws(SnapshotDecodingError) {
        guard let dictionary = file.dictionary(object) else { return }
        for position in 0..<dictionary.count {
            try body(file.string(file.key(position, of: dictionary)) ?? "", file.value(position, of: dictionary))  // keys are strings: checked
        }
    }

    @inline(__always) func name<Name: SnapshotName>(_ object: Object) -> Name? {
        guard let column = Name.rememberedIn else { return Self.resolve(object, in: file) }
        let slot = resolved + (Self.columns &* object.index &+ column)
        switch slot.pointee {
        case 0: return resolve(object, rememberingIn: slot)
        case Self.unknown: return nil
        case let known: return Name.allCases[Int(known) &- 1]  // the optimizer folds the array away
        }
    }

    /// The case of `Name` whose text the string `object` holds, remembered at `slot`.
    private func resolve<Name: SnapshotName>(_ object: Object, rememberingIn slot: UnsafeMutablePointer<UInt8>) -> Name? {
        let texts = Name.texts
        guard let position = Self.position(of: object, in: texts, file) else {
            slot.pointee = Self.unknown
            return nil
        }
        slot.pointee = UInt8(truncatingIfNeeded: position &+ 1)  // fewer cases than `unknown`
        return texts.cases[position]
    }

    /// The case of `Name` whose text the string `object` holds.
    private static func resolve<Name: SnapshotName>(_ object: Object, in file: AcceptedBinaryPropertyList) -> Name? {
        let texts = Name.texts
        return position(of: object, in: texts, file).map { texts.cases[$0] }
    }

    /// The position in `texts` of the case whose text the string `object` holds: an ASCII string
    /// compared byte for byte (for ASCII texts the same as comparing strings), any other through
    /// `String`.
    private static func position<Name: SnapshotName>(
        of object: Object, in texts: SnapshotNameTexts<Name>, _ file: AcceptedBinaryPropertyList
    ) -> Int? {
        guard let ascii = file.asciiBytes(object) else {
            return file.string(object).flatMap(Name.init(rawValue:)).flatMap(texts.cases.firstIndex(of:))
        }
        return texts.position(ofUTF8: ascii)
    }

    @inline(__always) func boolean(_ object: Object) -> Bool? { file.boolean(object) }
    @inline(__always) func integer(_ object: Object) -> Int64? { file.integer(object) }
    func real(_ object: Object) -> Double? { file.real(object) }
    @inline(__always) func date(_ object: Object) -> Date? { file.date(object) }

    /// The string `object` (read once per file or for an error message).
    func string(_ object: Object) -> String? { file.string(object) }
    /// Through the decoded value: a short list, present in few snapshots.
    func strings(_ object: Object) -> [String]? { SnapshotTree().strings(file.value(object)) }

    /// An ASCII string's bytes as they stand in the file; a UTF-16 one made into a `String`
    /// first. The identity is the string object's.
    @inline(__always) func withUTF8<Result>(ofString object: Object, _ body: (UnsafeBufferPointer<UInt8>, Int?) -> Result) -> Result? {
        if let ascii = file.asciiBytes(object) { return body(ascii, object.index) }
        guard var string = file.string(object) else { return nil }
        return string.withUTF8 { body($0, object.index) }
    }

    func kindInWords(_ object: Object) -> String { file.value(object).kindInWords }
}
