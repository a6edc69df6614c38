#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of one payload, as an enumeration whose case names are the JSON keys and whose raw
/// values are positions. Conformers declare `static let keys = caseNames()` and
/// `static let positions = positionsByKey()`.
protocol PayloadField: CaseIterable, RawRepresentable<Int> {
    /// Each field's JSON key (its case name), by position.
    static var keys: [String] { get }
    /// Each field's position, by JSON key; built once per field type.
    static var positions: [String: Int] { get }
}

extension PayloadField {
    /// The JSON key: the case name.
    var key: String { Self.keys[rawValue] }

    /// Each case's name, in case order, for ``keys``.
    static func caseNames() -> [String] { allCases.map { String(describing: $0) } }

    /// Key to position for every entry of ``keys``, for ``positions``.
    /// A loop, not `Dictionary(uniqueKeysWithValues:)` of pairs, whose array and tuple types
    /// would have their metadata built at a tool's first decode.
    static func positionsByKey() -> [String: Int] {
        var positions = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { positions[key] = position }
        return positions
    }
}

/// The members of one payload object that a decoder reads, gathered in one pass over the
/// object: reading a field is then an array index, where a lookup per field hashed some 30 keys
/// per transaction, most of them absent. Reads behave exactly as ``JSONCursor/optional(_:)``
/// and ``JSONCursor/required(_:)`` on the same object (null counts as absent, same paths and
/// messages).
struct PayloadMembers<Field: PayloadField> {
    let root: JSONCursor
    /// Each field's value by position; `.null` for an absent field, which reads as a null one
    /// does (and keeps `Optional<JSONInput>` and its array out of a tool's start).
    private var values: [JSONInput]

    /// - Throws: ``JSONPathError`` when `root` is not an object.
    init(_ root: JSONCursor) throws(JSONPathError) {
        let members = try root.object()
        self.root = root
        let positions = Field.positions
        values = Array(repeating: .null, count: positions.count)
        for (key, value) in members {
            if let position = positions[key] { values[position] = value }
        }
    }

    func optional(_ field: Field) -> JSONCursor? {
        let value = values[field.rawValue]
        if case .null = value { return nil }
        let key = field.key
        return root.member(key, value)
    }

    func required(_ field: Field) throws(JSONPathError) -> JSONCursor {
        guard let child = optional(field) else { throw root.fail("missing \(field.key)") }
        return child
    }

    func optionalString(_ field: Field) throws(JSONPathError) -> String? { try optional(field)?.string() }
    func optionalInteger(_ field: Field) throws(JSONPathError) -> Int? { try optional(field)?.integer() }
    func optionalFlag(_ field: Field) throws(JSONPathError) -> Bool? { try optional(field)?.flag() }
    func optionalIdentifier(_ field: Field) throws(JSONPathError) -> String? { try optional(field)?.identifier() }

    /// The field as a StoreKit date (``EventDecoder/date(_:)``), or `nil` when absent or null. A
    /// member, not a function of a `JSONCursor?`: destroying that optional built its metadata at
    /// every tool's first decode.
    func optionalDate(_ field: Field) throws(JSONPathError) -> Date? {
        guard let cursor = optional(field) else { return nil }
        return try EventDecoder.date(cursor)
    }
}
