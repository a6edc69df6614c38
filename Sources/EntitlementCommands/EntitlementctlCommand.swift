import CLISupport

/// `entitlementctl`: feed events, inspect the snapshot, check a feature, drive the watch link.
public struct EntitlementctlCommand: Command {
    public static let configuration = CommandConfiguration(
        commandName: "entitlementctl",
        abstract: "Feed StoreKit events to entitlementd and inspect what it publishes.",
        usage: "entitlementctl <subcommand> [options]",
        discussion: "Run 'entitlementctl <subcommand> --help' for a subcommand's options.",
        subcommands: subcommands.map { .init($0.name, $0.type.configuration.abstract) })

    static let subcommands: [(name: String, type: any Command.Type)] = [
        ("ingest", IngestCommand.self),
        ("status", StatusCommand.self),
        ("evaluate", EvaluateCommand.self),
        ("check", CheckCommand.self),
        ("watch-link", WatchLinkCommand.self),
        ("journal-repair", JournalRepairCommand.self),
    ]

    let subcommand: any Command

    public init(parsing scanner: inout ArgumentScanner) throws {
        guard let name = scanner.subcommand() else { throw UsageError("Missing subcommand (one of: \(Self.subcommands.map(\.name).joined(separator: ", ")))") }
        guard let type = Self.subcommands.first(where: { $0.name == name })?.type else {
            throw UsageError("Unknown subcommand '\(name)' (one of: \(Self.subcommands.map(\.name).joined(separator: ", ")))")
        }
        subcommand = try Self.parseSubcommand(type, &scanner)
    }

    private static func parseSubcommand(_ type: any Command.Type, _ scanner: inout ArgumentScanner) throws -> any Command {
        if scanner.wantsHelp { throw CleanExit(type.configuration.helpText) }
        return try type.init(parsing: &scanner)
    }

    public func run() async throws { try await subcommand.run() }

    /// Help for `entitlementctl` alone; `entitlementctl ingest --help` shows the subcommand's.
    public static func parse(_ arguments: [String]) throws -> Self {
        var scanner = ArgumentScanner(arguments)
        if scanner.wantsHelp, arguments.first.map({ name in !subcommands.contains { $0.name == name } }) ?? true {
            throw CleanExit(configuration.helpText)
        }
        let command = try Self(parsing: &scanner)
        try scanner.finish()
        return command
    }
}
