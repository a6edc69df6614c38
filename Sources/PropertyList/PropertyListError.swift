/// Why a property list could not be decoded or encoded. Each case describes itself in one line.
public enum PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a property list in any format this codec reads (binary `bplist00`,
    /// XML), or are truncated; `reason` is the decoder's one-line message (for XML it starts
    /// with the line and column, `line 3, column 5: …`).
    case malformed(reason: String)
    /// The parser produced an object that has no ``PropertyListValue`` case (for example an
    /// integer above `Int64.max`, or a dictionary key that is not a string); `path` names where.
    case unsupportedValue(path: String, type: String)
    /// Serialization refused the value; `reason` is the serializer's message on one line.
    case encodingFailed(reason: String)

    public var description: String {
        switch self {
        case .malformed(let reason): "not a valid property list: \(reason)"
        case .unsupportedValue(let path, let type):
            "property list value at '\(path.isEmpty ? "<root>" : path)' has unsupported type \(type)"
        case .encodingFailed(let reason): "cannot encode property list: \(reason)"
        }
    }
}

extension String {
    /// The text with every line break replaced by a space, for one-line messages.
    var flattenedToOneLine: String {
        split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
