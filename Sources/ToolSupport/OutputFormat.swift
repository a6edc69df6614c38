import CLISupport

/// `--format text|json`.
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, json

    package static let option = CommandConfiguration.Option("--format", value: "format", "Output format. (values: text, json; default: text)")

    package static func parse(_ scanner: inout ArgumentScanner) throws(UsageError) -> OutputFormat {
        try scanner.value("--format", as: "'text' or 'json'") { OutputFormat(rawValue: $0) } ?? .text
    }
}
