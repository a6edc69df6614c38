import CLISupport
import Entitlements
import StoreKitFormats
import FoundationEssentials
import SystemShims
import WatchExtension
import WidgetTimeline

/// `widget-renderer`: print widget (or watch) timelines from the shared file, once or on every change.
package struct WidgetRendererCommand: Command {
    package static let configuration = CommandConfiguration(
        commandName: "widget-renderer",
        abstract: "Render widget timelines (phone) or the watch app and its complications from the shared file.",
        discussion: """
            Families use WidgetKit's names: \(WidgetFamily.allCases.map(\.rawValue).joined(separator: ", ")); \
            on the watch, '\(Self.watchAppName)' names the watch app's launch screen, shown with every \
            complication when no --family is given. Text gives times in the local zone (TZ) with their \
            UTC offset; JSON prints one object per family timeline per line, times in UTC. --follow \
            watches the shared file through inotify and prints again on every change and whenever a \
            timeline's reload date arrives, until SIGINT or SIGTERM or until its output is closed (exit 0). \
            Every JSON line names the feature that gates it ("feature"); a --feature the catalog does not \
            define is a usage error (exit 64). On the watch, and for any snapshot the watch's broker \
            published, entries lock (noSnapshot) from the catalog's companionOfflineLimit after the \
            snapshot's last sync with the phone (companionSyncedAt); a watch that never synced judges \
            from its own events.
            """)

    package static let options: [CommandOption<Self>] = [
        .option("--device", value: "device", "Which device to render. (values: phone, tablet, watch; default: phone)", .oneOf("phone, tablet or watch")) { $0.device = $1 },
        .option(
            "--feature", value: "feature",
            "The catalog feature that gates what is rendered (default: the catalog's widgetFeature, widgets, on a phone or tablet; its watchFeature, watchApp, on the watch, for the app and its complications).",
            .text) { $0.feature = $1 },
        .repeatable(
            "--family", value: "family",
            "A widget family to render ('\(watchAppName)' for the watch app); repeat for several (default: all of the device's).", .text
        ) { $0.familyNames = $1 },
        OutputFormat.option { $0.format = $1 },
        .option(
            "--now", value: "ISO8601", "Render as of this instant (one-shot only; never earlier than the snapshot's issue time).", .iso8601) { $0.now = $1 },
        .flag("--follow", "Keep running and print again on every change.") { $0.follow = $1 },
        .flag("--ascii", "Draw with ASCII only (automatic when the locale is not UTF-8).") { $0.asciiRequested = $1 },
        .group { $0.common = $1 },
    ]

    var common = CommonOptions()
    var device = DeviceProfile.phone
    /// `--family` as given; ``families`` and ``showsWatchApp`` are what they select on ``device``.
    var familyNames: [String] = []
    var families: [WidgetFamily] = []
    var showsWatchApp = false
    var format = OutputFormat.text
    var now: Date?
    var follow = false
    var asciiRequested = false
    /// `--feature`, checked against the catalog when it is loaded.
    var feature: String?

    package init() {}

    package mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let device = device, names = familyNames
        let known = (device == .watch ? [Self.watchAppName] : []) + device.families.map(\.rawValue)
        families = try names.filter { device != .watch || $0 != Self.watchAppName }.map { name throws(UsageError) -> WidgetFamily in
            guard let family = WidgetFamily(rawValue: name) else {
                throw UsageError(
                    "unknown family '\(name)'" + Suggestion.didYouMean(name, among: known)
                        + " (\(device.rawValue) families: \(known.joined(separator: ", ")))")
            }
            guard device.supports(family) else {
                throw UsageError("family '\(name)' is not available on \(device.rawValue) (its families: \(known.joined(separator: ", ")))")
            }
            return family
        }
        // No --family: everything the device shows. Given: exactly those (the watch app only when named).
        showsWatchApp = device == .watch && (names.isEmpty || names.contains(Self.watchAppName))
        if names.isEmpty { families = device.families }
        if follow, now != nil { throw UsageError("'--now' cannot be combined with '--follow'") }
    }

    /// The `--family` name of the watch app's launch screen (not a WidgetKit family).
    static let watchAppName = "app"

    // On the main thread: a one-shot render is synchronous work and starts no thread of the
    // concurrency pool (three fewer threads at start-up); `--follow` runs its loop on this thread.
    nonisolated(nonsending) package func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let feature = feature ?? (device == .watch ? catalog.watchFeature : catalog.widgetFeature)
        if self.feature != nil, catalog.featureGate.rules[feature] == nil {
            let known = catalog.featureGate.rules.keys.sorted()
            throw UsageError(
                "unknown feature '\(feature)'" + Suggestion.didYouMean(feature, among: known)
                    + " (\(common.catalogPath) defines: \(known.joined(separator: ", ")))")
        }
        let renderer = TimelineRendering(
            device: device, families: families, showsWatchApp: showsWatchApp, format: format,
            charset: .forOutput(asciiRequested: asciiRequested),
            timeZone: .local, gate: catalog.featureGate, feature: feature, offlineLimit: catalog.companionOfflineLimit)
        if follow {
            try SnapshotFollower(layout: common.layout(for: catalog), rendering: renderer).run()
        } else {
            let snapshot: EntitlementSnapshot?
            switch SnapshotLoading.read(common.layout(for: catalog)) {
            case .snapshot(let s): snapshot = s
            case .missing(let path):
                snapshot = nil
                StandardStreams.writeError("widget-renderer: \(path): no snapshot published yet (container \(common.containerPath.origin)); rendering locked\n")
            case .refused(let reason), .failed(let reason, _):
                snapshot = nil
                StandardStreams.writeError("widget-renderer: \(reason); rendering locked\n")
            }
            StandardStreams.writeOut(renderer.render(snapshot, now: now ?? Date()).output)
        }
    }
}
