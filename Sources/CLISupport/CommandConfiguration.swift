/// What a command says about itself; the help screen is built from it.
public struct CommandConfiguration: Sendable {
    public struct Option: Sendable {
        public var names: String
        public var help: String
        public init(_ names: String, _ help: String) {
            self.names = names
            self.help = help
        }
    }

    public var commandName: String
    public var abstract: String
    public var usage: String
    public var discussion: String
    public var arguments: [Option]
    public var options: [Option]
    public var subcommands: [Option]

    public init(
        commandName: String, abstract: String, usage: String, discussion: String = "",
        arguments: [Option] = [], options: [Option] = [], subcommands: [Option] = []
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }

    /// The help screen in swift-argument-parser's sections: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
    /// SUBCOMMANDS, with descriptions in an aligned second column.
    public var helpText: String {
        var text = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(usage)\n"
        let helpOption = Option("-h, --help", "Show help information.")
        let sections: [(String, [Option])] = [
            ("ARGUMENTS", arguments), ("OPTIONS", options + [helpOption]), ("SUBCOMMANDS", subcommands),
        ]
        let width = sections.flatMap(\.1).map(\.names.count).max() ?? 0
        for (title, rows) in sections where !rows.isEmpty {
            text += "\n\(title):\n"
            for row in rows {
                text += "  " + row.names + String(repeating: " ", count: width - row.names.count + 2) + row.help + "\n"
            }
        }
        return text
    }
}
