import CLISupport

/// `--format text|json`.
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, json

    /// `--format`, for a command whose property that `set` sets holds the format (``text`` by default).
    package static func option<Command>(_ set: @escaping @Sendable (inout Command, OutputFormat) -> Void) -> CommandOption<Command> {
        .option("--format", value: "format", "Output format. (values: text, json; default: text)", .oneOf("'text' or 'json'"), set)
    }
}
