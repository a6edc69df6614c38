/// How an option's text becomes its value, and what the error says it expected when it does not:
/// `invalid value '-3' for '--count': expected a whole number ≥ 0`.
package struct ValueParser<Value>: Sendable {
    /// The expected form, as the error names it.
    package let expected: String
    private let convert: @Sendable (String) -> Value?

    package init(expected: String, _ convert: @escaping @Sendable (String) -> Value?) {
        self.expected = expected
        self.convert = convert
    }

    /// The value of `text` given for the option `name`.
    func parse(_ text: String, for name: String) throws(UsageError) -> Value {
        guard let value = convert(text) else { throw UsageError("invalid value '\(text)' for '\(name)': expected \(expected)") }
        return value
    }
}

extension ValueParser where Value == String {
    /// Any text, as given.
    package static var text: Self { Self(expected: "text") { $0 } }

    /// Any text but the empty one; `expected` names what it stands for.
    package static func nonEmpty(_ expected: String) -> Self { Self(expected: expected) { $0.isEmpty ? nil : $0 } }
}

extension ValueParser where Value == Int {
    /// A whole number of at least `minimum`.
    package static func wholeNumber(atLeast minimum: Int) -> Self {
        Self(expected: "a whole number ≥ \(minimum)") { Int($0).flatMap { $0 >= minimum ? $0 : nil } }
    }
}

extension ValueParser where Value: RawRepresentable<String> & Sendable {
    /// One of the type's raw values; `expected` lists them as the error says it (`'text' or 'json'`).
    package static func oneOf(_ expected: String) -> Self { Self(expected: expected) { Value(rawValue: $0) } }
}
