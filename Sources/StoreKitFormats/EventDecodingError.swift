/// Why an input line was refused. ``description`` is one line naming the field.
public enum EventDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line is not JSON, or not a JSON object.
    case notJSON(String)
    /// A field is missing, mistyped or out of range; `path` names it (`purchaseDate`,
    /// `data.signedTransactionInfo.expiresDate`, or `transaction` for the whole object).
    case invalidField(path: String, problem: String)
    /// The object is none of the accepted shapes.
    case unrecognizedShape(String)
    /// The event is for another bundle or environment than the catalog's (`field` is `bundleId`
    /// or `environment`).
    case foreign(field: String, expected: String, found: String)

    public var description: String {
        switch self {
        case .notJSON(let problem): problem
        case .invalidField(let path, let problem): path.isEmpty ? problem : "\(path): \(problem)"
        case .unrecognizedShape(let problem): problem
        case .foreign(let field, let expected, let found):
            "\(field): '\(found)' is not the catalog's '\(expected)'; refusing data from another \(field == "bundleId" ? "app" : "environment")"
        }
    }
}

extension EventDecodingError {
    init(_ error: JSONPathError) { self = .invalidField(path: error.path, problem: error.problem) }
}
