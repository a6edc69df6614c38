import Broker
import CLISupport
import Entitlements
import FoundationEssentials
import SystemShims
import EntitlementTools

/// `entitlementctl ingest [FILE|-] [--wait]`.
struct IngestCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl ingest",
        abstract: "Queue StoreKit transactions, renewal infos, server notifications, app transactions and grants (JSON Lines).",
        discussion: """
            Every line is validated against the catalog (bundle id, environment, and every JWS against its \
            signatures rule: intact always, trusted where signatures are required) before any is queued. \
            A grant is a JWS signed with one of the catalog's grantKeys (header kid), on a line of its own. \
            Exits 0 only once the events are durably queued (they survive kill -9 and power loss). \
            With --wait, also waits until entitlementd has published a generation that includes them, \
            and exits 65 naming the reason if entitlementd refused any of them.
            """,
        arguments: [.init("file", optional: true, "JSON Lines file (LF or CRLF line ends); '-' or nothing reads standard input.")])

    static let options: [CommandOption<Self>] = [
        .flag("--wait", "Wait until a published generation includes the events.") { $0.wait = $1 },
        .option(
            "--timeout", value: "seconds", "Give up waiting after this long (default 30; exit 75).",
            ValueParser(expected: "a positive number of seconds") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        ) { $0.timeout = $1 },
        .group { $0.common = $1 },
    ]

    var common = CommonOptions()
    var file: String?
    var wait = false
    var timeout = 30.0

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        file = try scanner.optionalPositional("FILE")
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let (lines, source) = try InputLines.read(file)
        let client = IngestClient(layout: common.layout(for: catalog), catalog: catalog)
        guard wait else {
            let tickets: [String]
            do { tickets = try client.enqueue(lines, source: source) } catch { throw error.toolError }
            guard !tickets.isEmpty else { return Self.noEvents(source) }
            var queued = ""
            for ticket in tickets { queued += "queued \(ticket)\n" }
            StandardStreams.writeOut(queued)
            return
        }
        // A terminating signal ends the wait once the queued events are durable, then this
        // process, as the signal would have.
        let outcome: IngestClient.QueuedWait?
        do { outcome = try client.enqueueAndWait(lines, source: source, timeout: timeout) } catch { throw error.toolError }
        switch outcome {
        case nil: Self.noEvents(source)
        case .published(_, let generation)?:
            StandardStreams.writeOut("published generation \(generation.map(String.init) ?? "unknown")\n")
        case .interrupted(_, let signal)?:
            ProcessExit.terminate(by: signal)
        }
    }

    /// Nothing to queue is no failure (exit 0), but said.
    private static func noEvents(_ source: String) {
        StandardStreams.writeError("entitlementctl ingest: \(source): no events\n")
    }
}
