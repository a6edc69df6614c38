/// A problem at a key path inside a JSON document: `entitlements.plus.products[1]`, `not a string`.
package struct JSONPathError: Error, Sendable, Hashable {
    /// The key path, or the document's label (`transaction`) for the root.
    package var path: String
    package var problem: String
    package var message: String { path.isEmpty ? problem : "\(path): \(problem)" }
}

/// A JSON value together with where it sits, so every accessor can name the key path in its error.
package struct JSONCursor: Sendable {
    package let value: JSONInput
    /// What to call the root in messages (`transaction`, `renewal info`); used when `path` is empty.
    let rootLabel: String
    /// Spells the parent's key path when asked (the root's own at the root), to which `step`
    /// (`nil` at the root) leads: a decoder makes a cursor for every member it reads and names
    /// almost none of them, so a root's members share its spelling and only deeper ones make one.
    private let spellParentPath: @Sendable () -> String, step: Step?
    private enum Step: Sendable { case key(String), index(Int) }

    package init(_ value: JSONInput, path: String = "", rootLabel: String = "") { self.init(value, rootLabel, { path }, nil) }

    private init(_ value: JSONInput, _ rootLabel: String, _ spellParentPath: @escaping @Sendable () -> String, _ step: Step?) {
        (self.value, self.rootLabel, self.spellParentPath, self.step) = (value, rootLabel, spellParentPath, step)
    }

    /// The key path from the document root; empty at the root.
    package var path: String { Self.path(spellParentPath(), then: step) }

    private static func path(_ parent: String, then step: Step?) -> String {
        switch step {
        case nil: parent
        case .key(let key): parent.isEmpty ? key : parent + "." + key
        case .index(let index): "\(parent)[\(index)]"
        }
    }

    private var displayPath: String { path.isEmpty ? rootLabel : path }

    package func fail(_ problem: String) -> JSONPathError { JSONPathError(path: displayPath, problem: problem) }

    /// The cursor at this object's member `key`, whose value is `value`.
    package func member(_ key: String, _ value: JSONInput) -> JSONCursor { child(value, .key(key)) }

    /// The cursor at this array's item `index`, whose value is `value`.
    package func item(_ index: Int, _ value: JSONInput) -> JSONCursor { child(value, .index(index)) }

    private func child(_ value: JSONInput, _ next: Step) -> JSONCursor {
        guard let step else { return JSONCursor(value, rootLabel, spellParentPath, next) }
        return JSONCursor(value, rootLabel, { [spellParentPath] in Self.path(spellParentPath(), then: step) }, next)
    }

    // MARK: Structure

    var members: JSONObject? { if case .object(let m) = value { m } else { nil } }

    package func object() throws(JSONPathError) -> JSONObject {
        if let members { return members } else { throw fail("not an object (found \(value.typeName))") }
    }

    package func has(_ key: String) -> Bool { members?[key] != nil }

    /// The member `key`, or `nil` when absent or `null` (optional fields may be written as `null`).
    package func optional(_ key: String) throws(JSONPathError) -> JSONCursor? {
        guard let child = try object()[key], child != .null else { return nil }
        return member(key, child)
    }

    package func required(_ key: String) throws(JSONPathError) -> JSONCursor {
        if let child = try optional(key) { return child } else { throw fail("missing \(key)") }
    }

    /// The items of an array, each with its key path.
    package func array() throws(JSONPathError) -> [JSONCursor] {
        guard case .array(let items) = value else { throw fail("not an array (found \(value.typeName))") }
        return items.enumerated().map { item($0, $1) }
    }

    /// Each member of an object, keys in sorted order so errors are deterministic.
    package func entries() throws(JSONPathError) -> [(key: String, cursor: JSONCursor)] {
        try object().members.sorted { $0.key < $1.key }.map { ($0.key, member($0.key, $0.value)) }
    }

    /// Each member of an object in the order the document writes them (where order means
    /// something, such as the catalog's entitlements that order a paywall's products).
    package func entriesInDocumentOrder() throws(JSONPathError) -> [(key: String, cursor: JSONCursor)] {
        try object().map { ($0.key, member($0.key, $0.value)) }
    }

    // MARK: Scalars

    package func string() throws(JSONPathError) -> String {
        if case .string(let s) = value { return s } else { throw fail("not a string") }
    }

    package func bool() throws(JSONPathError) -> Bool {
        if case .bool(let b) = value { return b } else { throw fail("not a boolean") }
    }

    package func double() throws(JSONPathError) -> Double {
        // An integer's text reads faster as one; every other number as a double.
        guard case .number(let text) = value, let number = Int64(text).map(Double.init) ?? Double(text), number.isFinite else {
            throw fail("not a finite number")
        }
        return number
    }

    package func integer() throws(JSONPathError) -> Int {
        guard case .number(let text) = value else { throw fail("not an integer") }
        if let exact = Int(text) { return exact }
        guard let number = Double(text), number.isFinite, number == number.rounded(), abs(number) < 9.0e15 else {
            throw fail("not an integer")
        }
        return Int(number)
    }

    /// A string, or an integral number written without quotes (identifiers in hand-written input).
    package func identifier() throws(JSONPathError) -> String {
        switch value {
        case .string(let s) where !s.isEmpty: return s
        case .number(let text) where Int64(text) != nil: return text
        default: throw fail("not an identifier string")
        }
    }

    /// A boolean, or 0 / 1 (StoreKit writes `autoRenewStatus` as a number).
    package func flag() throws(JSONPathError) -> Bool {
        switch value {
        case .bool(let b): return b
        case .number(let text) where Double(text) == 0: return false
        case .number(let text) where Double(text) == 1: return true
        default: throw fail("not a boolean or 0/1")
        }
    }
}

extension JSONCursor {
    package func optionalString(_ key: String) throws(JSONPathError) -> String? { try optional(key)?.string() }
    package func optionalBool(_ key: String) throws(JSONPathError) -> Bool? { try optional(key)?.bool() }
}
