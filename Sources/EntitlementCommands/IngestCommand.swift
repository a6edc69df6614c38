import Broker
import CLISupport
import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `entitlementctl ingest [FILE|-] [--wait]`.
struct IngestCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl ingest",
        abstract: "Queue StoreKit transactions, renewal infos and server notifications (JSON Lines).",
        usage: "entitlementctl ingest [FILE|-] [--wait] [--timeout <seconds>] [--container <dir>] [--group <id>] [--catalog <file>]",
        discussion: """
            Every line is validated against the catalog (bundle id, environment, and every JWS against its \
            signatures rule: intact always, trusted where signatures are required) before any is queued. \
            Exits 0 only once the events are durably queued (they survive kill -9 and power loss). \
            With --wait, also waits until entitlementd has published a generation that includes them.
            """,
        arguments: [.init("FILE", "JSON Lines file; '-' or nothing reads standard input.")],
        options: CommonOptions.help + [
            .init("--wait", "Wait until a published generation includes the events."),
            .init("--timeout <seconds>", "Give up waiting after this long (default 30; exit 75)."),
        ])

    var common: CommonOptions
    var file: String?
    var wait: Bool
    var timeout: Double

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        wait = scanner.flag("--wait")
        timeout = try scanner.value("--timeout", as: "a positive number of seconds") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 30
        file = try scanner.optionalPositional("FILE")
    }

    func run() async throws {
        let catalog = try CatalogLoading.load(common.catalogPath)
        let (lines, source) = try InputLines.read(file)
        let client = IngestClient(layout: common.layout, catalog: catalog)
        let ticket: String?
        do { ticket = try client.enqueue(lines, source: source) } catch { throw error.toolError }
        guard let ticket else {
            StandardStreams.writeError("entitlementctl ingest: \(source): no events\n")
            return
        }
        guard wait else {
            StandardStreams.writeOut("queued \(ticket)\n")
            return
        }
        do {
            let generation = try await client.waitUntilPublished(ticket, timeout: timeout)
            StandardStreams.writeOut("published generation \(generation.map(String.init) ?? "unknown")\n")
        } catch {
            throw error.toolError
        }
    }
}

/// Loads the catalog named on the command line, mapping failures onto the contract's codes.
package enum CatalogLoading {
    package static func load(_ path: String) throws(ToolError) -> Catalog {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ToolError(.usage, "\(path): catalog not found (pass --catalog FILE or run from the package root)")
        }
        do { return try Catalog.load(path: path) } catch { throw ToolError(.dataError, "\(error)") }
    }
}
