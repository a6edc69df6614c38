import CLISupport
import EntitlementDefaults
import StoreKitFormats
import FoundationEssentials
import SystemShims
import EntitlementTools

/// `entitlementctl features [--format json]`: every feature's `check` in one read of the snapshot.
struct FeaturesCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl features",
        abstract: "Check every feature of the catalog at once (a settings screen, premium badges).",
        discussion: """
            One read of the snapshot answers every feature: the JSON form is {"features": {NAME: CHECK}}, CHECK being \
            what 'entitlementctl check NAME --format json' prints. Exit 0 whatever is locked; 75 (77 without permission) \
            when the shared file cannot be read and a paid feature would depend on it.
            """)

    static let options: [CommandOption<Self>] = [
        .option("--now", value: "ISO8601", "Evaluate at this instant (never earlier than the snapshot's issue time).", .iso8601) { $0.now = $1 },
        OutputFormat.option { $0.format = $1 },
        .group { $0.common = $1 },
    ]

    var common = CommonOptions()
    var now: Date?
    var format = OutputFormat.text

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let rest = try scanner.positionals()
        guard rest.isEmpty else { throw UsageError("unexpected argument '\(rest[0])' (features takes none)") }
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let gate = catalog.featureGate
        let read = FeatureSnapshotRead(common, catalog: catalog, now: now)
        let clock = read.clock
        let analytics = (try? PaywallAnalyticsLog(container: common.container).events()) ?? []
        let checks = gate.rules.keys.sorted().map {
            FeatureCheck($0, gate: gate, snapshot: read.snapshot, clock: clock, analytics: analytics)
        }
        if let failedRead = read.failed, checks.contains(where: { !$0.decision.isUnlocked }) {
            throw ToolError(ExitCode(failedCall: failedRead.errno), failedRead.reason)
        }
        if let note = read.note { StandardStreams.writeError("entitlementctl features: \(note)\n") }
        switch format {
        case .text: StandardStreams.writeOut(checks.map(\.text).joined())
        case .json:
            let object = JSONValue.object(["features": .object(Dictionary(uniqueKeysWithValues: checks.map { ($0.feature, $0.json) }))])
            StandardStreams.writeOut(object.serialized + "\n")
        }
    }
}
