/// Strings that repeat across many facts (bundle id, product type, environment, storefront,
/// currency...), each held once and named by its position: a store of a million transactions
/// holds a handful of these, not a million copies.
struct InternedStrings: Sendable {
    private(set) var values: [String] = []
    private var positions: [String: Int] = [:]

    /// The position of `value`, adding it when new. A few values are compared in turn (cheaper
    /// than hashing a String); past that, a dictionary finds them.
    mutating func position(of value: String) -> Int {
        if values.count <= Self.scanned {
            if let position = values.firstIndex(of: value) { return position }
        } else if let position = positions[value] {
            return position
        }
        values.append(value)
        positions[value] = values.count - 1
        return values.count - 1
    }

    subscript(position: Int) -> String { values[position] }

    /// Up to this many values are found by comparison rather than by hashing.
    static let scanned = 16
}
