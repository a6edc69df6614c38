/// What a command says about itself: its name, what it does and its positional arguments. The
/// usage line and the help screen are generated from it and from the command's declared options
/// (``CommandOption``), which the ``ArgumentScanner`` accepts exactly (and the built-in ones), so
/// help cannot drift from the parser.
package struct CommandConfiguration: Sendable {
    /// One option as help and the scanner see it: `--name <value>` when ``valueName`` is set,
    /// else a flag. A command declares its options as ``CommandOption``s, which carry this.
    package struct Option: Sendable, Hashable {
        /// The spelling on the command line, e.g. `--count`.
        package var name: String
        /// A one-letter spelling, e.g. `-h` for `--help`.
        package var shortName: String?
        /// The placeholder of its value, e.g. `n` for `--count <n>`; `nil` for a flag.
        package var valueName: String?
        /// Whether it may be given more than once (shown as `[--family <family> ...]`).
        package var isRepeatable: Bool
        /// One or more sentences, capitalised, ending with a full stop.
        package var help: String

        package init(_ name: String, short shortName: String? = nil, value valueName: String? = nil, repeatable: Bool = false, _ help: String) {
            self.name = name
            self.shortName = shortName
            self.valueName = valueName
            self.isRepeatable = repeatable
            self.help = help
        }

        package var takesValue: Bool { valueName != nil }

        /// Every spelling the command line may use: the short one first.
        package var spellings: [String] { (shortName.map { [$0] } ?? []) + [name] }

        /// `--count <n>`, `--record` or `-h, --help`.
        package var label: String {
            let names = spellings.joined(separator: ", ")
            return valueName.map { "\(names) <\($0)>" } ?? names
        }
    }

    /// One positional argument.
    package struct Argument: Sendable, Hashable {
        package var name: String
        package var isOptional: Bool
        package var help: String

        package init(_ name: String, optional: Bool = false, _ help: String) {
            self.name = name
            self.isOptional = optional
            self.help = help
        }
    }

    /// A subcommand's name and one-line abstract, for the parent's help.
    package struct Subcommand: Sendable, Hashable {
        package var name: String
        package var abstract: String
        package init(_ name: String, _ abstract: String) {
            self.name = name
            self.abstract = abstract
        }
    }

    /// The full name, e.g. `entitlementctl check`; its first word is the tool.
    package var commandName: String
    package var abstract: String
    package var discussion: String
    package var arguments: [Argument]

    package init(commandName: String, abstract: String, discussion: String = "", arguments: [Argument] = []) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
    }

    /// The executable's name (`entitlementctl` for `entitlementctl check`).
    package var toolName: String { commandName.split(separator: " ").first.map(String.init) ?? commandName }

    /// The last word of ``commandName`` (`check` for `entitlementctl check`), as a group names
    /// its subcommand; empty when it has no word.
    var lastWord: String { commandName.split(separator: " ").last.map(String.init) ?? "" }

    package static let versionOption = Option("--version", "Show the version.")
    package static let helpOption = Option("--help", short: "-h", "Show help information.")
    /// The options every command answers without declaring them: the one list the scanner,
    /// the help screen and the suggestions read.
    package static let builtInOptions: [Option] = [versionOption, helpOption]

    /// The words of the usage line after the command name: for a group, `[<options>]` (when it
    /// has any) and `<subcommand>`; else the arguments, then every option in declaration
    /// order, optional ones in brackets.
    func usageWords(options: [Option], subcommands: [Subcommand]) -> [String] {
        if !subcommands.isEmpty { return (options.isEmpty ? [] : ["[<options>]"]) + ["<subcommand>"] }
        var words: [String] = []
        for argument in arguments {
            words.append(argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>")
        }
        for option in options {
            words.append("[" + option.label + (option.isRepeatable ? " ..." : "") + "]")
        }
        return words
    }
}
