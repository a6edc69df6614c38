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
/// with the very same key objects reuse the first one's field names by position; a product id
/// shared by several entries is made into a `String` twice at most (the second is shared).
struct SnapshotInPlace: SnapshotPropertyList {
    typealias Object = AcceptedBinaryPropertyList.Object
    private let file: AcceptedBinaryPropertyList
    /// Per object, ``columns`` bytes: one per ``SnapshotName/rememberedIn`` column (0 not yet
    /// resolved, ``unknown`` not one of that name's texts, else the case's position + 1), then
    /// the string's position + 1 in ``interned`` (0 not made yet, ``usedOnce`` made once and
    /// not kept, ``unknown`` not kept because ``interned`` is full).
    private let resolved: UnsafeMutablePointer<UInt8>
    private let interned: UnsafeMutablePointer<[String]>
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
    /// In the interned column: the string was made once and not kept.
    private static let usedOnce: UInt8 = 0xFE
    private static let columns = 5
    private static let internedColumn = 4

    /// Runs `body` with a reader over `file`, its memory freed afterwards.
    static func withReader<Result>(_ file: AcceptedBinaryPropertyList, _ body: (SnapshotInPlace) -> Result) -> Result {
        var interned: [String] = []
        var last = LastFields(dictionary: nil, column: -1)
        return withUnsafeMutablePointer(to: &interned) { interned in
            withUnsafeMutablePointer(to: &last) { last in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: columns * file.objectCount + cachedPositions) { storage in
                    let base = storage.baseAddress!  // capacity is at least `cachedPositions`
                    base.initialize(repeating: 0, count: storage.count)
                    return body(SnapshotInPlace(
                        file: file, resolved: base, interned: interned, last: last, fieldCodes: base + columns * file.objectCount))
                }
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
        case 0:
            let name: Name? = Self.resolve(object, in: file)
            slot.pointee = name.flatMap { name in Name.allCases.firstIndex(of: name).map { UInt8($0 + 1) } } ?? Self.unknown
            return name
        case Self.unknown: return nil
        case let known: return Name.allCases[Int(known) - 1]
        }
    }

    /// The case of `Name` whose text the string `object` holds: an ASCII string compared byte
    /// for byte (for ASCII texts the same as comparing strings), any other through `String`.
    private static func resolve<Name: SnapshotName>(_ object: Object, in file: AcceptedBinaryPropertyList) -> Name? {
        guard let ascii = file.asciiBytes(object) else { return file.string(object).flatMap(Name.init(rawValue:)) }
        for candidate in Name.allCases {
            var text = candidate.rawValue
            if text.withUTF8({ utf8 in
                guard utf8.count == ascii.count, let left = utf8.baseAddress, let right = ascii.baseAddress else { return utf8.count == ascii.count }
                return RawBytes.equal(left, right, count: ascii.count)
            }) {
                return candidate
            }
        }
        return nil
    }

    @inline(__always) func boolean(_ object: Object) -> Bool? { file.boolean(object) }
    @inline(__always) func integer(_ object: Object) -> Int64? { file.integer(object) }
    func real(_ object: Object) -> Double? { file.real(object) }
    @inline(__always) func date(_ object: Object) -> Date? { file.date(object) }

    /// The string `object`. A string object used a second time is kept, and every later use
    /// shares that `String` (up to 253 of them; later ones are made per use), so an id used by
    /// many entries is one allocation while a string used once costs no bookkeeping.
    func string(_ object: Object) -> String? {
        let slot = resolved + (Self.columns &* object.index &+ Self.internedColumn)
        let known = slot.pointee
        if known != 0 && known < Self.usedOnce { return interned.pointee[Int(known) - 1] }
        guard let string = file.string(object) else { return nil }
        switch known {
        case 0: slot.pointee = Self.usedOnce
        case Self.usedOnce:
            if interned.pointee.count < Int(Self.usedOnce) - 1 {
                interned.pointee.append(string)
                slot.pointee = UInt8(interned.pointee.count)
            } else {
                slot.pointee = Self.unknown
            }
        default: break  // the table is full
        }
        return string
    }

    /// An ASCII string's bytes as they stand in the file; a UTF-16 one made into a `String`
    /// first. The identity is the string object's.
    @inline(__always) func withUTF8<Result>(ofString object: Object, _ body: (UnsafeBufferPointer<UInt8>, Int?) -> Result) -> Result? {
        if let ascii = file.asciiBytes(object) { return body(ascii, object.index) }
        guard var string = file.string(object) else { return nil }
        return string.withUTF8 { body($0, object.index) }
    }

    func kindInWords(_ object: Object) -> String { file.value(object).kindInWords }
}
