#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A problem at a key path inside a JSON document: `entitlements.plus.products[1]`, `not a string`.
struct JSONPathError: Error, Sendable, Hashable {
    /// The key path, or the document's label (`transaction`) for the root.
    var path: String
    var problem: String
    var message: String { path.isEmpty ? problem : "\(path): \(problem)" }
}

/// A JSON value together with where it sits, so every accessor can name the key path in its error.
struct JSONCursor: Sendable {
    let value: JSONInput
    /// Where the value sits, spelt out only when a message needs it (``path``): a cursor is made
    /// for every member and item a decoder visits, and almost none of them is ever named. For a
    /// member, the path of its object and its key, so that making one allocates nothing.
    private let location: JSONKeyPath
    private let key: String?
    /// What to call the root in messages (`transaction`, `renewal info`); used when `path` is empty.
    let rootLabel: String

    init(_ value: JSONInput, path: String = "", rootLabel: String = "") {
        self.init(value, location: path.isEmpty ? .root : JSONKeyPath(.text(path)), key: nil, rootLabel: rootLabel)
    }

    private init(_ value: JSONInput, location: JSONKeyPath, key: String?, rootLabel: String) {
        self.value = value
        self.location = location
        self.key = key
        self.rootLabel = rootLabel
    }

    /// This cursor's place as a key path node, made when a child needs it.
    private var node: JSONKeyPath { key.map { JSONKeyPath(.member(location, $0)) } ?? location }

    /// The key path from the document root; empty at the root.
    var path: String { node.text }

    private var displayPath: String { path.isEmpty ? rootLabel : path }

    func fail(_ problem: String) -> JSONPathError { JSONPathError(path: displayPath, problem: problem) }

    /// The cursor at this object's member `key`, whose value is `value`.
    func member(_ key: String, _ value: JSONInput) -> JSONCursor {
        JSONCursor(value, location: node, key: key, rootLabel: rootLabel)
    }

    /// The cursor at this array's item `index`, whose value is `value`.
    func item(_ index: Int, _ value: JSONInput) -> JSONCursor {
        JSONCursor(value, location: JSONKeyPath(.index(node, index)), key: nil, rootLabel: rootLabel)
    }

    // MARK: Structure

    var members: JSONObject? { if case .object(let m) = value { m } else { nil } }

    func object() throws(JSONPathError) -> JSONObject {
        guard let members else { throw fail("not an object (found \(value.typeName))") }
        return members
    }

    func has(_ key: String) -> Bool { members?[key] != nil }

    /// The member `key`, or `nil` when absent or `null` (optional fields may be written as `null`).
    func optional(_ key: String) throws(JSONPathError) -> JSONCursor? {
        let members = try object()
        guard let child = members[key] else { return nil }
        if case .null = child { return nil }
        return member(key, child)
    }

    func required(_ key: String) throws(JSONPathError) -> JSONCursor {
        guard let child = try optional(key) else { throw fail("missing \(key)") }
        return child
    }

    /// The items of an array, each with its key path.
    func array() throws(JSONPathError) -> [JSONCursor] {
        guard case .array(let items) = value else { throw fail("not an array (found \(value.typeName))") }
        return items.enumerated().map { item($0, $1) }
    }

    /// Each member of an object, keys in sorted order so errors are deterministic.
    func entries() throws(JSONPathError) -> [(key: String, cursor: JSONCursor)] {
        try object().members.sorted { $0.key < $1.key }.map { ($0.key, member($0.key, $0.value)) }
    }

    /// Each member of an object in the order the document writes them (where order means
    /// something, such as the catalog's entitlements that order a paywall's products).
    func entriesInDocumentOrder() throws(JSONPathError) -> [(key: String, cursor: JSONCursor)] {
        try object().map { ($0.key, member($0.key, $0.value)) }
    }

    // MARK: Scalars

    func string() throws(JSONPathError) -> String {
        guard case .string(let s) = value else { throw fail("not a string") }
        return s
    }

    func bool() throws(JSONPathError) -> Bool {
        guard case .bool(let b) = value else { throw fail("not a boolean") }
        return b
    }

    func double() throws(JSONPathError) -> Double {
        // An integer's text reads faster as one; every other number as a double.
        guard case .number(let text) = value, let number = Int64(text).map(Double.init) ?? Double(text), number.isFinite else {
            throw fail("not a finite number")
        }
        return number
    }

    func integer() throws(JSONPathError) -> Int {
        guard case .number(let text) = value else { throw fail("not an integer") }
        if let exact = Int(text) { return exact }
        guard let number = Double(text), number.isFinite, number == number.rounded(), abs(number) < 9.0e15 else {
            throw fail("not an integer")
        }
        return Int(number)
    }

    /// A string, or an integral number written without quotes (identifiers in hand-written input).
    func identifier() throws(JSONPathError) -> String {
        switch value {
        case .string(let s) where !s.isEmpty: return s
        case .number(let text) where Int64(text) != nil: return text
        default: throw fail("not an identifier string")
        }
    }

    /// A boolean, or 0 / 1 (StoreKit writes `autoRenewStatus` as a number).
    func flag() throws(JSONPathError) -> Bool {
        switch value {
        case .bool(let b): return b
        case .number(let text) where Double(text) == 0: return false
        case .number(let text) where Double(text) == 1: return true
        default: throw fail("not a boolean or 0/1")
        }
    }
}

/// A key path as the steps that led to a value, joined into text (`entitlements.plus.products[1]`)
/// only when asked. A class, so that a cursor copies one reference; never optional (the root is
/// ``root``), so that no generic `Optional` of it is built at start-up.
final class JSONKeyPath: Sendable {
    enum Step: Sendable {
        /// The document root (empty text).
        case root
        /// A path given as text.
        case text(String)
        /// The member `key` of the object at the parent path.
        case member(JSONKeyPath, String)
        /// The item at an index of the array at the parent path.
        case index(JSONKeyPath, Int)
    }

    static let root = JSONKeyPath(.root)

    let step: Step

    init(_ step: Step) { self.step = step }

    var text: String {
        switch step {
        case .root: return ""
        case .text(let text): return text
        case .member(let parent, let key):
            let parentText = parent.text
            return parentText.isEmpty ? key : parentText + "." + key
        case .index(let parent, let index): return "\(parent.text)[\(index)]"
        }
    }
}

extension JSONCursor {
    func optionalString(_ key: String) throws(JSONPathError) -> String? { try optional(key)?.string() }
    func optionalInteger(_ key: String) throws(JSONPathError) -> Int? { try optional(key)?.integer() }
    func optionalBool(_ key: String) throws(JSONPathError) -> Bool? { try optional(key)?.bool() }
    func optionalIdentifier(_ key: String) throws(JSONPathError) -> String? { try optional(key)?.identifier() }
}
