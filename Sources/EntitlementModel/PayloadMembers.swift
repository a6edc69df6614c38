#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of one payload, declared once: an enumeration whose raw values are the JSON keys,
/// read by the payload's decoder (through ``PayloadMembers``) and written by its JSON form.
protocol PayloadField: CaseIterable, RawRepresentable<String> {}

/// One payload object read by its declared fields; each read is ``JSONCursor``'s read of the
/// member named by the field (null counts as absent, same paths and messages).
struct PayloadMembers<Field: PayloadField> {
    let root: JSONCursor

    init(_ root: JSONCursor) { self.root = root }

    func optional(_ field: Field) throws(JSONPathError) -> JSONCursor? { try root.optional(field.rawValue) }
    func required(_ field: Field) throws(JSONPathError) -> JSONCursor { try root.required(field.rawValue) }
    func optionalString(_ field: Field) throws(JSONPathError) -> String? { try root.optionalString(field.rawValue) }
    func optionalInteger(_ field: Field) throws(JSONPathError) -> Int? { try root.optionalInteger(field.rawValue) }
    func optionalFlag(_ field: Field) throws(JSONPathError) -> Bool? { try root.optionalFlag(field.rawValue) }
    func optionalIdentifier(_ field: Field) throws(JSONPathError) -> String? { try root.optionalIdentifier(field.rawValue) }
    func optionalDate(_ field: Field) throws(JSONPathError) -> Date? { try root.optionalDate(field.rawValue) }
}
