import CLISupport
import ToolSupport

/// `entitlementctl`: feed events, inspect the snapshot, check a feature, repair the journal.
public struct EntitlementctlCommand: CommandGroup {
    public static let configuration = CommandConfiguration(
        commandName: "entitlementctl",
        abstract: "Feed StoreKit events to entitlementd and inspect what it publishes.",
        discussion: "Options may stand before or after the subcommand: 'entitlementctl --container DIR status' is 'entitlementctl status --container DIR'.",
        options: CommonOptions.options,
        subcommands: subcommandRows)

    public static let subcommands: [any Command.Type] = [
        IngestCommand.self, StatusCommand.self, EvaluateCommand.self, CheckCommand.self, FeaturesCommand.self, ProductsCommand.self,
        PaywallCommand.self, PreferenceCommand.self, JournalRepairCommand.self, PairCommand.self, CompanionCommand.self,
    ]

    public let subcommand: any Command

    public init(subcommand: any Command) { self.subcommand = subcommand }

    // On the caller's executor (the main thread): every subcommand is synchronous work, so a
    // command starts no thread of the concurrency pool.
    nonisolated(nonsending) public func run() async throws { try await runSubcommand() }
}
