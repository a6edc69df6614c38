import CLISupport
import EntitlementModel
import Foundation

/// `entitlementctl check FEATURE [--count N]`: exit 0 when unlocked, 1 when locked.
struct CheckCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl check",
        abstract: "Check one feature against the published snapshot (exit 0 unlocked, 1 locked).",
        usage: "entitlementctl check <feature> [--count <n>] [--now <ISO8601>] [--format text|json] [--container <dir>] [--group <id>] [--catalog <file>]",
        discussion: "Fails closed: no snapshot, a refused shared file or an unknown feature all answer locked, with the reason.",
        arguments: [.init("feature", "A feature from the catalog, e.g. habits, widgets, watchApp.")],
        options: CommonOptions.help + [
            .init("--count <n>", "For count-limited features: how many items the user already has."),
            .init("--now <ISO8601>", "Evaluate at this instant (never earlier than the snapshot's issue time)."),
            .init("--format <format>", "Output format. (values: text, json; default: text)"),
        ])

    var common: CommonOptions
    var feature: String
    var count: Int?
    var now: Date?
    var format: OutputFormat

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        count = try scanner.value("--count", as: "a whole number ≥ 0") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        now = try scanner.value("--now", as: "an ISO 8601 date such as 2026-11-22T10:00:00Z", ISO8601.date(from:))
        format = try OutputFormat.parse(&scanner)
        let rest = try scanner.positionals()
        guard rest.count == 1 else { throw UsageError(rest.isEmpty ? "Missing feature" : "Expected one feature, got \(rest.count)") }
        feature = rest[0]
    }

    func run() async throws {
        let catalog = try CatalogLoading.load(common.catalogPath)
        var snapshot: EntitlementSnapshot?
        var note: String?
        switch SnapshotLoading.read(common.layout) {
        case .snapshot(let s): snapshot = s
        case .missing(let path): note = "\(path): no snapshot published yet"
        case .refused(let reason): note = reason
        }
        if let note { StandardStreams.writeError("entitlementctl check: \(note)\n") }
        let decision = catalog.featureGate.check(feature, snapshot: snapshot, wallClock: now ?? Date(), currentCount: count)
        switch (decision, format) {
        case (.unlocked(let remaining), .text):
            StandardStreams.writeOut("unlocked: \(feature)" + (remaining.map { " (\($0) free remaining)" } ?? "") + "\n")
        case (.locked(let paywall), .text):
            StandardStreams.writeOut("locked: \(feature): \(paywall.reason.rawValue): \(paywall.copy.title) — \(paywall.copy.message) [\(paywall.copy.callToAction)] \(paywall.deepLink)\n")
        case (.unlocked(let remaining), .json):
            StandardStreams.writeOut(JSONValue.object(["feature": .string(feature), "locked": false, "remaining": remaining.map { .int(Int64($0)) } ?? .null]).serialized + "\n")
        case (.locked(let paywall), .json):
            StandardStreams.writeOut(JSONValue.object([
                "feature": .string(feature), "locked": true, "reason": .string(paywall.reason.rawValue),
                "title": .string(paywall.copy.title), "message": .string(paywall.copy.message),
                "callToAction": .string(paywall.copy.callToAction), "deepLink": .string(paywall.deepLink),
            ]).serialized + "\n")
        }
        if !decision.isUnlocked { throw ExitCode.locked }
    }
}
