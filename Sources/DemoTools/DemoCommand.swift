import BrokerTools
import Broker
import CLISupport
import Entitlements
import FoundationEssentials
import ServiceRuntime
import SharedDefaults
import SystemShims
import EntitlementTools
import WidgetTimeline

/// `entitlement-demo`: the whole product in under a minute, on the built-in defaults.
///
/// Starts the phone's and the watch's `entitlementd` (the companion link between them runs through
/// a ``DemoRelay`` the demo can cut), a widget follower and a watch follower as child processes
/// (this same binary, run as each tool) on temporary containers, then plays: free → free trial
/// starts (unlocked) → trial ends (locked at the second, with no event) → lifetime purchase on the
/// phone (unlocked on the watch too) → the watch out of range and a refund (the phone locks, the
/// watch has not heard) → back in range (the watch catches up) → a purchase on the watch (the phone
/// unlocks). Every child is stopped and every file removed before it exits.
package struct DemoCommand: Command {
    package static let configuration = CommandConfiguration(
        commandName: "entitlement-demo",
        abstract: "Play free → trial → trial ends → lifetime → refund → a watch purchase, on a phone and a watch.",
        discussion: """
            Needs no set-up: containers are temporary and removed at the end. The phone's and the watch's \
            entitlementd are paired with a key the demo makes and linked over 127.0.0.1 (free ports) through \
            a relay the demo cuts to take the watch out of range. The processes it starts run \
            under their tools' names, so 'pgrep entitlementd' finds the demo's daemons.
            Also a multi-call binary: 'entitlement-demo TOOL ARGS…', or a link to it named TOOL, runs TOOL \
            (entitlementd, entitlementctl or widget-renderer).
            """)

    package static let options: [CommandOption<Self>] = [
        .option(
            "--trial-seconds", value: "n", "How long the demo's free trial lasts (default 5).",
            ValueParser(expected: "a number of seconds from 1 to 60") { Double($0).flatMap { (1...60).contains($0) ? $0 : nil } }
        ) { $0.trialSeconds = $1 },
        .flag("--ascii", "Print ASCII only (automatic when the locale is not UTF-8).") { $0.asciiRequested = $1 },
        // The demo's containers are its own: of the locations only the catalog is taken.
        .group([CommonOptions.catalogOption]) { $0.common = $1 },
    ]

    var common = CommonOptions()
    var trialSeconds = 5.0
    var asciiRequested = false

    package init() {}

    package func run() async throws {
        let catalog = common.catalog
        let charset = TextCharset.forOutput(asciiRequested: asciiRequested)
        let loaded = try CatalogLoading.load(catalog)
        let absoluteCatalog = URL(fileURLWithPath: catalog.path).standardizedFileURL.path
        let root = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        guard let executable = ProcessIdentity.ownExecutablePath() else {
            throw ToolError(.unavailable, "/proc/self/exe: cannot read this executable's path")
        }
        let tools = try ToolLinks(directory: root + "/bin", executable: executable, tools: DemoStage.tools)
        let stage = DemoStage(root: root, tools: tools, catalogPath: absoluteCatalog, catalog: loaded, charset: charset)
        let signals: SignalSequence
        do { signals = try SignalSequence.make([.interrupt, .terminate]) } catch {
            throw ToolError(ExitCode(failedCall: error), "cannot listen for signals: \(error)")
        }
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                do { try await stage.play(trialSeconds: trialSeconds) } catch { return .failure(error) }
                return .success(())
            }
            group.addTask {
                for await signal in signals { return .failure(ToolError(.temporaryFailure, "interrupted by \(signal)")) }
                return nil
            }
            var first: Result<Void, any Error>?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first ?? .success(())
        }
        await stage.stopAll()
        try outcome.get()
    }

    package static func makeTemporaryDirectory(prefix: String = "entitlement-demo") throws(ToolError) -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        do {
            return try FileSystem.makeTemporaryDirectory(in: base, prefix: prefix)
        } catch {
            throw ToolError(ExitCode(failedCall: error), "\(base): cannot create a temporary directory: \(error.message)")
        }
    }
}
