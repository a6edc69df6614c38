import CLISupport
@testable import BrokerCommands
@testable import EntitlementCommands
@testable import ToolSupport
@testable import WidgetRendererCommands
import Testing

/// Help is generated from each command's declared options; these tests hold the parser to the
/// same list, so help cannot name an option the parser refuses or leave out one it accepts.
@Suite("Declared options match the parser")
struct DeclaredOptionsTests {
    /// Every command of every shipped tool, with the positionals it needs to parse.
    static let commands: [(type: any Command.Type, positionals: [String])] = [
        (EntitlementdCommand.self, []),
        (WidgetRendererCommand.self, []),
        (DemoCommand.self, []),
        (IngestCommand.self, ["-"]),
        (StatusCommand.self, []),
        (EvaluateCommand.self, ["-"]),
        (CheckCommand.self, ["widgets"]),
        (FeaturesCommand.self, []),
        (ProductsCommand.self, []),
        (PaywallCommand.self, ["report"]),
        (PreferenceCommand.self, ["syncEnabled", "on"]),
        (JournalRepairCommand.self, []),
        (PairCommand.self, []),
        (CompanionCommand.self, []),
    ]

    static var names: [String] { commands.map { $0.type.configuration.commandName } }

    /// A value each placeholder accepts.
    static func sample(_ placeholder: String) -> String {
        switch placeholder {
        case "dir": "/tmp/entitlements-sample"
        case "id": "group.sample"
        case "file": "/tmp/entitlements-sample/Catalog.json"
        case "n", "k": "2"
        case "name": "widgets"
        case "locale": "en_US"
        case "seconds": "5"
        case "ISO8601": "2026-01-01T00:00:00Z"
        case "format": "json"
        case "device": "phone"
        case "family": "systemSmall"
        case "[host:]port", "host:port": "127.0.0.1:9"
        default: "unexpected placeholder <\(placeholder)>"
        }
    }

    static func command(named name: String) -> (type: any Command.Type, positionals: [String]) {
        commands.first { $0.type.configuration.commandName == name }!
    }

    @Test("The parser reads exactly the declared options", arguments: names)
    func parserReadsDeclaredOptions(name: String) throws {
        let (type, positionals) = Self.command(named: name)
        var scanner = ArgumentScanner(positionals, options: type.configuration.options)
        _ = try type.init(parsing: &scanner)
        #expect(scanner.askedOptions == Set(type.configuration.options.map(\.name)))
    }

    @Test("Every declared option is accepted, after and before the positionals", arguments: names)
    func everyDeclaredOptionIsAccepted(name: String) throws {
        let (type, positionals) = Self.command(named: name)
        for option in type.configuration.options {
            let given = [option.name] + (option.valueName.map { [Self.sample($0)] } ?? [])
            _ = try type.parse(positionals + given)
            _ = try type.parse(given + positionals)
        }
    }

    @Test("entitlementctl accepts every subcommand's options before the subcommand's name")
    func groupAcceptsOptionsBeforeSubcommand() throws {
        for type in EntitlementctlCommand.subcommands {
            let subcommand = String(type.configuration.commandName.split(separator: " ").last!)
            let positionals = Self.command(named: type.configuration.commandName).positionals
            for option in type.configuration.options {
                let given = [option.name] + (option.valueName.map { [Self.sample($0)] } ?? [])
                let parsed = try EntitlementctlCommand.parse(given + [subcommand] + positionals)
                #expect(Swift.type(of: parsed.subcommand).configuration.commandName == type.configuration.commandName)
            }
        }
    }

    @Test("Every option entitlementctl lists for itself is accepted by every subcommand")
    func groupOptionsAreEverySubcommands() {
        let groupOptions = Set(EntitlementctlCommand.configuration.options.map(\.name))
        #expect(!groupOptions.isEmpty)
        for type in EntitlementctlCommand.subcommands {
            let accepted = Set(type.configuration.options.map(\.name))
            #expect(groupOptions.isSubset(of: accepted), "\(type.configuration.commandName)")
        }
    }

    @Test("The group lists every subcommand, and every subcommand is in the registry above")
    func groupListsSubcommands() {
        let contract = ["ingest", "status", "evaluate", "check", "features", "products", "paywall", "preference", "journal-repair", "pair", "companion"]
        #expect(EntitlementctlCommand.configuration.subcommands.map(\.name) == contract)
        #expect(EntitlementctlCommand.subcommands.map { $0.configuration.commandName } == contract.map { "entitlementctl " + $0 })
        #expect(Set(contract.map { "entitlementctl " + $0 }).isSubset(of: Set(Self.names)))
        #expect(Set(ToolEntry.tools.keys) == ["entitlementd", "entitlementctl", "widget-renderer", "entitlement-demo"])
    }
}
