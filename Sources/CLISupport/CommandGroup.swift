/// A command made of subcommands (`entitlementctl ingest|status|…`), the way git and kubectl
/// are: options may stand before or after the subcommand's name (`entitlementctl --container X
/// status` is `entitlementctl status --container X`), `help [SUBCOMMAND]` prints help, a
/// misspelt subcommand gets a suggestion, and a subcommand's usage error names the
/// subcommand's help.
///
/// A conforming type implements ``Command/parse(_:)`` as `try parseGroup(arguments)` and
/// ``Command/run()`` as `try await runSubcommand()`.
public protocol CommandGroup: Command {
    /// The subcommands; each one's name is the last word of its `commandName`.
    static var subcommands: [any Command.Type] { get }
    init(subcommand: any Command)
    var subcommand: any Command { get }
}

extension CommandGroup {
    /// `init(parsing:)` is never called for a group: ``parseGroup(_:)`` finds the subcommand.
    public init(parsing scanner: inout ArgumentScanner) throws {
        throw UsageError("missing subcommand")
    }

    /// The subcommands' names and abstracts, for the group's help.
    public static var subcommandRows: [CommandConfiguration.Subcommand] {
        subcommands.map { .init(name(of: $0), $0.configuration.abstract) }
    }

    static func name(of type: any Command.Type) -> String {
        String(type.configuration.commandName.split(separator: " ").last ?? "")
    }

    /// Finds the subcommand among `arguments` (skipping options, and the values of every
    /// subcommand's value options), then parses everything else as that subcommand's arguments.
    public static func parseGroup(_ arguments: [String]) throws -> Self {
        let allOptions = subcommands.flatMap { $0.configuration.options }
        let valueOptions = Set(allOptions.filter(\.takesValue).map(\.name))
        let groupScanner = ArgumentScanner(arguments, options: [])
        let index = ArgumentScanner.firstPositional(in: arguments, valueOptions: valueOptions)
        // Before the subcommand's name, an option no subcommand knows cannot be skipped (does it
        // take a value?): report it rather than take its value for the subcommand.
        let known = Set(allOptions.map(\.name) + ["--help", "-h", "--version"])
        for argument in arguments[..<(index ?? arguments.count)] where argument.hasPrefix("-") && argument != "-" && argument != "--" {
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            guard known.contains(name) else {
                throw UsageError("unknown option '\(name)'" + Suggestion.didYouMean(name, among: known.sorted()), command: configuration.commandName)
            }
        }
        guard let index else {
            if groupScanner.wantsHelp { throw CleanExit(configuration.helpText) }
            if groupScanner.wantsVersion { throw CleanExit(versionText) }
            throw UsageError("missing subcommand (one of: \(names.joined(separator: ", ")))", command: configuration.commandName)
        }
        let name = arguments[index]
        var rest = arguments
        rest.remove(at: index)
        if name == "help" {
            let target = ArgumentScanner.firstPositional(in: rest, valueOptions: valueOptions).map { rest[$0] }
            guard let target else { throw CleanExit(configuration.helpText) }
            throw CleanExit(try subcommand(named: target).configuration.helpText)
        }
        let type = try subcommand(named: name)
        return Self(subcommand: try type.parse(rest))
    }

    /// Runs the subcommand; a usage error it finds only while running names its help.
    public func runSubcommand() async throws {
        do { try await subcommand.run() } catch let error as UsageError {
            throw error.attributed(to: type(of: subcommand).configuration.commandName)
        }
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
