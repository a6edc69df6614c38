/// Where a value sits inside its parent container, for error paths.
enum PropertyListPathComponent {
    case key(String)
    case index(Int)
}

extension PropertyListError {
    /// The error as seen from the parent container: an
    /// ``PropertyListError/unsupportedValue(path:type:)`` gets `component` in front of its path
    /// (`a.b[2].c`, as Foundation's bridge spells it); other cases are unchanged. Used only on
    /// the way out of a failing decode, so paths cost nothing while decoding succeeds.
    func nested(under component: PropertyListPathComponent) -> PropertyListError {
        guard case .unsupportedValue(let path, let type) = self else { return self }
        let head: String
        switch component {
        case .key(let key): head = key
        case .index(let index): head = "[\(index)]"
        }
        let joined = path.isEmpty ? head : path.hasPrefix("[") ? head + path : "\(head).\(path)"
        return .unsupportedValue(path: joined, type: type)
    }
}

extension String {
    /// The text quoted and escaped, cut to 64 characters, for a one-line error message.
    var quotedForMessage: String {
        let cut = count > 64 ? String(prefix(64)) + "…" : self
        return cut.debugDescription
    }
}
