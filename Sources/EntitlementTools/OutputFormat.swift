import CLISupport

/// `--format text|json`.
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, json

    /// `--format`, for a command whose `property` holds the format (``text`` by default).
    package static func option<Command>(_ property: any WritableKeyPath<Command, OutputFormat> & Sendable) -> CommandOption<Command> {
        .option("--format", value: "format", "Output format. (values: text, json; default: text)", .oneOf("'text' or 'json'"), property)
    }
}
