/// Readings of a value that the catalog and the `.storekit` file share: each names the key path
/// of what it refuses.
extension JSONCursor {
    /// The string, read by `parse`; refused with `problem(string)` when `parse` gives `nil`.
    package func string<T>(_ parse: (String) -> T?, else problem: (String) -> String) throws(JSONPathError) -> T {
        let text = try string()
        guard let value = parse(text) else { throw fail(problem(text)) }
        return value
    }

    /// The members of the object at `key`, keys sorted; none when it is absent.
    package func entries(of key: String) throws(JSONPathError) -> [(key: String, cursor: JSONCursor)] {
        guard let object = try optional(key) else { return [] }
        return Array(try object.entries())
    }

    /// The items of the array at `key`; none when it is absent.
    package func items(of key: String) throws(JSONPathError) -> [JSONCursor] {
        guard let array = try optional(key) else { return [] }
        return Array(try array.array())
    }

    package func nonEmptyString() throws(JSONPathError) -> String {
        try string({ $0.isEmpty ? nil : $0 }) { _ in "is empty" }
    }

    package func duration() throws(JSONPathError) -> ISO8601Duration {
        try string(ISO8601Duration.init) { _ in "not an ISO 8601 duration" }
    }
}
