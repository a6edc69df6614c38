import CLISupport
import EntitlementModel
import Foundation

/// `entitlementctl status [--format json|text]`.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl status",
        abstract: "Print the published snapshot.",
        usage: "entitlementctl status [--format json|text] [--container <dir>] [--group <id>]",
        discussion: "Exit 69 when nothing has been published yet, 65 when the shared file is refused (torn, foreign, symlinked, unknown schema).",
        options: CommonOptions.help + [.init("--format <format>", "Output format. (values: text, json; default: text)")])

    var common: CommonOptions
    var format: OutputFormat

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        format = try OutputFormat.parse(&scanner)
    }

    func run() async throws {
        switch SnapshotLoading.read(common.layout) {
        case .missing(let path):
            throw ToolError(.unavailable, "\(path): no snapshot published yet (is entitlementd running?)")
        case .refused(let reason):
            throw ToolError(.dataError, reason)
        case .snapshot(let snapshot):
            switch format {
            case .json: StandardStreams.writeOut(snapshot.json.serialized + "\n")
            case .text: StandardStreams.writeOut(Self.text(snapshot, now: Date()))
            }
        }
    }

    static func text(_ snapshot: EntitlementSnapshot, now: Date) -> String {
        var text = "generation \(snapshot.generation), issued \(ISO8601.string(from: snapshot.issuedAt))"
        if let next = snapshot.nextTransition { text += ", next transition \(ISO8601.string(from: next))" }
        text += "\n"
        for id in snapshot.entitlements.keys.sorted() {
            let status = snapshot.entitlements[id]!
            let activeNow = status.isActive(at: snapshot.effectiveNow(wallClock: now))
            var line = "  \(id): \(activeNow ? "active" : "inactive"), \(status.state.rawValue)"
            if status.periodType != .normal { line += " (\(status.periodType.rawValue))" }
            if let product = status.productId { line += ", \(product)" }
            line += status.expiresAt.map { ", until \(ISO8601.string(from: $0))" } ?? (status.active ? ", no end" : "")
            if status.willRenew { line += ", renews" }
            if status.ownership == .familyShared { line += ", family shared" }
            text += line + "\n"
        }
        return text
    }
}

/// `--format text|json`.
enum OutputFormat: String, Sendable {
    case text, json

    static func parse(_ scanner: inout ArgumentScanner) throws(UsageError) -> OutputFormat {
        try scanner.value("--format", as: "'text' or 'json'") { OutputFormat(rawValue: $0) } ?? .text
    }
}
