/// What a command says about itself: its name, what it does, and every argument and option it
/// accepts. The usage line and the help screen are generated from it, and the
/// ``ArgumentScanner`` accepts exactly the options it declares, so help cannot drift from the
/// parser.
public struct CommandConfiguration: Sendable {
    /// One option: `--name <value>` when ``valueName`` is set, else a flag.
    public struct Option: Sendable, Hashable {
        /// The spelling on the command line, e.g. `--count`.
        public var name: String
        /// The placeholder of its value, e.g. `n` for `--count <n>`; `nil` for a flag.
        public var valueName: String?
        /// Whether it may be given more than once (shown as `[--family <family> ...]`).
        public var isRepeatable: Bool
        /// One or more sentences, capitalised, ending with a full stop.
        public var help: String

        public init(_ name: String, value valueName: String? = nil, repeatable: Bool = false, _ help: String) {
            self.name = name
            self.valueName = valueName
            self.isRepeatable = repeatable
            self.help = help
        }

        public var takesValue: Bool { valueName != nil }

        /// `--count <n>` or `--record`.
        public var label: String { valueName.map { "\(name) <\($0)>" } ?? name }
    }

    /// One positional argument.
    public struct Argument: Sendable, Hashable {
        public var name: String
        public var isOptional: Bool
        public var help: String

        public init(_ name: String, optional: Bool = false, _ help: String) {
            self.name = name
            self.isOptional = optional
            self.help = help
        }
    }

    /// A subcommand's name and one-line abstract, for the parent's help.
    public struct Subcommand: Sendable, Hashable {
        public var name: String
        public var abstract: String
        public init(_ name: String, _ abstract: String) {
            self.name = name
            self.abstract = abstract
        }
    }

    /// The full name, e.g. `entitlementctl check`; its first word is the tool.
    public var commandName: String
    public var abstract: String
    public var discussion: String
    public var arguments: [Argument]
    public var options: [Option]
    public var subcommands: [Subcommand]

    public init(
        commandName: String, abstract: String, discussion: String = "",
        arguments: [Argument] = [], options: [Option] = [], subcommands: [Subcommand] = []
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }

    /// The executable's name (`entitlementctl` for `entitlementctl check`).
    public var toolName: String { String(commandName.split(separator: " ").first ?? Substring(commandName)) }

    /// The options every command answers without declaring them.
    public static let builtInOptions: [Option] = [
        Option("--version", "Show the version."),
        Option("-h, --help", "Show help information."),
    ]

    /// The words of the usage line after the command name: subcommand placeholder, arguments,
    /// then every option in declaration order, optional ones in brackets.
    public var usageWords: [String] {
        var words: [String] = []
        if !subcommands.isEmpty { words.append("<subcommand>") }
        for argument in arguments {
            words.append(argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>")
        }
        for option in options {
            words.append("[" + option.label + (option.isRepeatable ? " ..." : "") + "]")
        }
        return words
    }
}
