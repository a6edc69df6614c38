import Broker
import CLISupport
import EntitlementModel

/// `entitlementctl evaluate --now ISO8601 [FILE|-]`: the engine without a daemon.
struct EvaluateCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl evaluate",
        abstract: "Run the engine on the given events and print the snapshot it would publish (JSON).",
        usage: "entitlementctl evaluate --now <ISO8601> [FILE|-] [--catalog <file>]",
        discussion: "No daemon and no container are involved. The clock is never earlier than the newest signedDate among the events.",
        arguments: [.init("FILE", "JSON Lines of transactions, renewal infos, notifications; '-' or nothing reads standard input.")],
        options: [
            .init("--catalog <file>", "Catalog JSON (env ENTITLEMENTS_CATALOG; default \(CommonOptions.defaultCatalog))."),
            .init("--now <ISO8601>", "The instant to evaluate at, e.g. 2026-11-22T10:00:00Z (default: the current time)."),
        ])

    var common: CommonOptions
    var now: Date?
    var file: String?

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        now = try scanner.value("--now", as: "an ISO 8601 date such as 2026-11-22T10:00:00Z", ISO8601.date(from:))
        let files = try scanner.positionals()
        guard files.count <= 1 else { throw UsageError("Expected at most one FILE, got \(files.count)") }
        file = files.first
    }

    func run() async throws {
        let catalog = try CatalogLoading.load(common.catalogPath)
        let (lines, source) = try InputLines.read(file)
        var facts = FactStore()
        var conflicts = TransactionConflicts()
        for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            do {
                let events = try EventLine.decode(line, catalog: catalog)
                try conflicts.check(events, line: index + 1)
                for event in events { facts.insert(event) }
            } catch {
                throw ToolError(.dataError, "\(source):\(index + 1): \(error)")
            }
        }
        let result = EntitlementEngine(catalog: catalog).evaluate(facts, now: now ?? Date(), floor: nil)
        StandardStreams.writeOut(result.snapshot(generation: 0, issuedAt: result.effectiveNow).json.serialized + "\n")
    }
}

import Foundation
