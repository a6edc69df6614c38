extension Array where Element == String {
    /// The elements with `separator` between them: the same text as `joined(separator:)`.
    ///
    /// That one is the standard library's generic code, not specialized for `[String]` in a
    /// client module: its first call in a process looks up `Array<String>`'s conformance to
    /// `Collection` among every conformance record in the binary (~100 K instructions), a
    /// measurable part of a one-shot tool. This one is specialized where it is used.
    @inlinable
    package func joined(by separator: String) -> String {
        var text = ""
        for (index, element) in enumerated() {
            if index > 0 { text += separator }
            text += element
        }
        return text
    }
}
