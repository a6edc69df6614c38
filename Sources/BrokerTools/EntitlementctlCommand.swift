import CLISupport
import EntitlementTools

/// `entitlementctl`: feed events, inspect the snapshot, check a feature, repair the journal.
package struct EntitlementctlCommand: CommandGroup {
    package static let configuration = CommandConfiguration(
        commandName: "entitlementctl",
        abstract: "Feed StoreKit events to entitlementd and inspect what it publishes.",
        discussion: "Options may stand before or after the subcommand: 'entitlementctl --container DIR status' is 'entitlementctl status --container DIR'.")

    package static let subcommands: [any Command.Type] = [
        IngestCommand.self, StatusCommand.self, EvaluateCommand.self, CheckCommand.self, FeaturesCommand.self, ProductsCommand.self,
        PaywallCommand.self, PreferenceCommand.self, JournalRepairCommand.self, PairCommand.self, CompanionCommand.self,
    ]

    package let subcommand: any Command

    package init(subcommand: any Command) { self.subcommand = subcommand }

    // On the caller's executor (the main thread): every subcommand is synchronous work, so a
    // command starts no thread of the concurrency pool.
    nonisolated(nonsending) package func run() async throws { try await runSubcommand() }
}
