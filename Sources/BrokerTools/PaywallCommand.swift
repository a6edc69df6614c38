import CLISupport
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import FoundationEssentials
import SystemShims
import EntitlementTools

/// `entitlementctl paywall dismissed FEATURE` and `entitlementctl paywall report [--since ISO8601]`.
struct PaywallCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl paywall",
        abstract: "Record a dismissed paywall, or report what each paywall showed and converted.",
        discussion: """
            'dismissed FEATURE' appends a paywallDismissed event (with the feature's current reason) to \
            <dir>/Library/Analytics/paywall.jsonl. 'report' reads that log (and paywall.jsonl.1, the records before \
            its last rotation) and prints {"features": {F: {"shown", "dismissed", "upgraded", "conversion", \
            "usedPremium", "usedFree"}}} for every feature of the catalog and any other the log names; conversion is \
            upgraded / shown, null when none was shown. upgradedFromPaywall is appended by entitlementd when it \
            journals a purchase unlocking F within the catalog's attributionWindow (default PT1H) after a paywallShown \
            for F. Damaged lines are skipped and counted on stderr.
            """,
        arguments: [
            .init("action", "What to do. (values: dismissed, report)"),
            .init("feature", "For dismissed: the feature whose paywall the user closed."),
        ])

    static let options: [CommandOption<Self>] = [
        .option("--since", value: "ISO8601", "For report: only events at or after this instant.", .iso8601) { $0.since = $1 },
        .option("--now", value: "ISO8601", "For dismissed: when it happened (default: now).", .iso8601) { $0.now = $1 },
        OutputFormat.option { $0.format = $1 },
        .group { $0.common = $1 },
    ]

    enum Action { case dismissed(String), report }

    var common = CommonOptions()
    var action = Action.report
    var since: Date?
    var now: Date?
    var format = OutputFormat.text

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let rest = try scanner.positionals()
        switch rest.first {
        case "dismissed":
            guard rest.count == 2 else { throw UsageError(rest.count < 2 ? "missing feature after 'dismissed'" : "expected 'dismissed FEATURE'") }
            action = .dismissed(rest[1])
        case "report":
            guard rest.count == 1 else { throw UsageError("unexpected argument '\(rest[1])' after 'report'") }
            action = .report
        case nil: throw UsageError("missing action ('dismissed FEATURE' or 'report')")
        case let other?: throw UsageError("unknown action '\(other)' (expected 'dismissed' or 'report')")
        }
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let gate = catalog.featureGate
        let log = PaywallAnalyticsLog(container: common.container)
        switch action {
        case .dismissed(let feature):
            try CheckCommand.requireKnown(feature, gate: gate, catalogPath: "\(common.catalogPath)")
            let read = FeatureSnapshotRead(common, catalog: catalog, now: now)
            let clock = read.clock
            let reason = gate.check(feature, snapshot: read.snapshot, wallClock: clock).paywall?.reason
            do { try log.append(PaywallEvent(.paywallDismissed, feature: feature, reason: reason, time: clock)) } catch {
                throw ToolError(Self.exitCode(error), error.description)
            }
        case .report:
            let records: PaywallAnalyticsLog.Records
            do { records = try log.read() } catch { throw ToolError(Self.exitCode(error), error.description) }
            if records.damagedLines > 0 {
                StandardStreams.writeError("entitlementctl paywall: \(log.path): skipped \(records.damagedLines) damaged lines\n")
            }
            let report = PaywallReport(events: records.events, since: since, features: gate.rules.keys)
            switch format {
            case .json: StandardStreams.writeOut(report.json.serialized + "\n")
            case .text:
                StandardStreams.writeOut(report.features.sorted { $0.key < $1.key }.map { feature, counts in
                    let conversion = counts.conversion.map { "\(Int(($0 * 100).rounded()))%" } ?? "n/a"
                    return "\(feature): shown \(counts.shown), dismissed \(counts.dismissed), upgraded \(counts.upgraded)"
                        + " (conversion \(conversion)), used by premium \(counts.usedPremium), by free \(counts.usedFree)\n"
                }.joined())
            }
        }
    }

    /// 77 when the log's directory or file may not be read or written, else 75.
    static func exitCode(_ error: PaywallAnalyticsError) -> ExitCode {
        error.errno.map(ExitCode.init(failedCall:)) ?? .temporaryFailure
    }
}

extension PaywallReport {
    /// `{"features": {F: {"shown", "dismissed", "upgraded", "conversion", "usedPremium", "usedFree"}}}`.
    var json: JSONValue {
        .object([
            "features": .object(
                features.mapValues { counts in
                    .object([
                        "shown": .int(Int64(counts.shown)), "dismissed": .int(Int64(counts.dismissed)),
                        "upgraded": .int(Int64(counts.upgraded)), "conversion": counts.conversion.map(JSONValue.double) ?? .null,
                        "usedPremium": .int(Int64(counts.usedPremium)), "usedFree": .int(Int64(counts.usedFree)),
                    ])
                })
        ])
    }

}
