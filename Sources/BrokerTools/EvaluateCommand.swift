import Broker
import CLISupport
import Entitlements
import StoreKitFormats
import FoundationEssentials
import EntitlementTools

/// `entitlementctl evaluate [--now ISO8601] [FILE|-]`: the engine without a daemon.
struct EvaluateCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl evaluate",
        abstract: "Run the engine on the given events and print the snapshot it would publish (JSON).",
        discussion: "No daemon and no container are involved. The clock is never earlier than the newest signedDate among the events.",
        arguments: [
            .init("file", optional: true, "JSON Lines of transactions, renewal infos, notifications or bare JWS strings (LF or CRLF); '-' or nothing reads standard input."),
        ])

    // The container and group are accepted like every tool's, so one set of flags serves every
    // command; only the catalog is used.
    static let options: [CommandOption<Self>] = [
        .option("--now", value: "ISO8601", "The instant to evaluate at, e.g. 2026-11-22T10:00:00Z (default: the current time).", .iso8601) { $0.now = $1 },
        .group(CommonOptions.options(ignoringContainerIn: "evaluate")) { $0.common = $1 },
    ]

    var common = CommonOptions()
    var now: Date?
    var file: String?

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        file = try scanner.optionalPositional("FILE")
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let (lines, source) = try InputLines.read(file)
        var facts = FactStore()
        do {
            for kept in try EventLine.decodeAll(lines, source: source, catalog: catalog) { facts.insert(contentsOf: kept.events) }
        } catch {
            throw error.toolError
        }
        let result = EntitlementEngine(catalog: catalog).evaluate(facts, now: now ?? Date(), floor: nil)
        StandardStreams.writeOut(result.snapshot(generation: 0).json.serialized + "\n")
    }
}

