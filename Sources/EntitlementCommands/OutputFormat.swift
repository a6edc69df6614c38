import CLISupport

/// `--format text|json`.
enum OutputFormat: String, Sendable {
    case text, json

    static func parse(_ scanner: inout ArgumentScanner) throws(UsageError) -> OutputFormat {
        try scanner.value("--format", as: "'text' or 'json'") { OutputFormat(rawValue: $0) } ?? .text
    }
}
