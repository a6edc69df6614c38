/// A command made of subcommands (`entitlementctl ingest|status|…`), the way git and kubectl
/// are: options may stand before or after the subcommand's name (`entitlementctl --container X
/// status` is `entitlementctl status --container X`) but the name stands before `--`,
/// `help [SUBCOMMAND]` prints help, a misspelt subcommand gets a suggestion, and a subcommand's
/// usage error names the subcommand's help.
///
/// A conforming type declares its subcommands and implements ``RunnableCommand/run()`` as
/// `try await runSubcommand()`; parsing and help are provided. The options its help lists are
/// those every subcommand declares (``sharedOptions``): the ones that may stand before any
/// subcommand's name.
package protocol CommandGroup: RunnableCommand {
    /// The subcommands; each one's name is the last word of its `commandName`.
    static var subcommands: [any Command.Type] { get }
    init(subcommand: any Command)
    var subcommand: any Command { get }
}

extension CommandGroup {
    /// The subcommands' names and abstracts, for the group's help.
    package static var subcommandRows: [CommandConfiguration.Subcommand] {
        subcommands.map { .init(name(of: $0), $0.configuration.abstract) }
    }

    /// The options every subcommand declares, in the first subcommand's order and words.
    package static var sharedOptions: [CommandConfiguration.Option] {
        let declared = subcommands.map { Set($0.optionSpecs.map(\.name)) }
        return (subcommands.first?.optionSpecs ?? []).filter { option in declared.allSatisfy { $0.contains(option.name) } }
    }

    package static var helpText: String { configuration.helpText(options: sharedOptions, subcommands: subcommandRows) }

    static func name(of type: any Command.Type) -> String {
        type.configuration.lastWord
    }

    /// Finds the subcommand among `arguments` (skipping every subcommand's options and their
    /// values), then parses everything else as that subcommand's arguments. Before the
    /// subcommand's name, help and version rank above an unknown option.
    package static func parse(_ arguments: [String]) throws -> Self {
        // Only options standing before the subcommand's name need every subcommand's options to
        // be skipped; when the name comes first (the usual spelling) the scanner needs none.
        let optionsFirst = arguments.first.map(ArgumentScanner.looksLikeOption) ?? false
        let scanner = ArgumentScanner(arguments, options: optionsFirst ? allOptions : [])
        let (index, problem) = scanner.firstPositional()
        guard let index else {
            if scanner.wantsHelp { throw CleanExit(helpText) }
            if scanner.wantsVersion { throw CleanExit(versionText) }
            if let problem { throw problem.attributed(to: configuration.commandName) }
            throw UsageError(
                "missing subcommand" + (arguments.contains("--") ? " before '--'" : "") + " (one of: \(names.joined(separator: ", ")))", command: configuration.commandName)
        }
        let name = arguments[index]
        let rest = scanner.arguments(removingAt: index)
        guard name != "help" else { throw CleanExit(try helpText(for: rest)) }
        return Self(subcommand: try subcommand(named: name).parse(rest))
    }

    /// `help [SUBCOMMAND]`: the subcommand's help, or the group's (for `help` alone and `help help`).
    private static func helpText(for arguments: [String]) throws -> String {
        let scanner = ArgumentScanner(arguments, options: allOptions)
        guard let index = scanner.firstPositional().index, arguments[index] != "help" else { return helpText }
        return try subcommand(named: arguments[index]).helpText
    }

    /// Runs the subcommand, on the caller's executor (so a subcommand whose `run()` is
    /// `nonisolated(nonsending)` runs there too); a usage error it finds only while running
    /// names its help.
    nonisolated(nonsending) package func runSubcommand() async throws {
        do { try await subcommand.run() } catch let error as UsageError {
            throw error.attributed(to: type(of: subcommand).configuration.commandName)
        }
    }

    /// Every option any subcommand declares.
    private static var allOptions: [CommandConfiguration.Option] {
        subcommands.flatMap { $0.optionSpecs }
    }

    private static var names: [String] { subcommands.map(name(of:)) }

    private static func subcommand(named name: String) throws(UsageError) -> any Command.Type {
        if let type = subcommands.first(where: { Self.name(of: $0) == name }) { return type }
        throw UsageError(
            "unknown subcommand '\(name)'" + Suggestion.didYouMean(name, among: names + ["help"])
                + " (one of: \(names.joined(separator: ", ")))",
            command: configuration.commandName)
    }
}
