import Broker
import CLISupport
import FoundationEssentials
import EntitlementTools

/// `entitlementd`: the daemon, in the foreground, logging to stderr.
package struct EntitlementdCommand: Command {
    package static let configuration = CommandConfiguration(
        commandName: "entitlementd",
        abstract: "Compute entitlements from queued StoreKit events and publish them to the shared defaults file.",
        discussion: """
            Runs in the foreground and logs one line per event to stderr. Holds the container's lock \
            (a second instance exits 75), applies queued events (also those queued while it was not \
            running), publishes a snapshot on every change and at every expiry, trial end and grace end.
            SIGTERM/SIGINT: finish the event in hand and exit 0. SIGHUP: reload the catalog. \
            A failed step (disk full, I/O error) is retried, at most 5 s apart, until it succeeds. \
            Exits 75 at once if its lock file or container is removed while it runs.
            """)

    package static let options: [CommandOption<Self>] = [
        .group { $0.common = $1 },
        .option(
            "--companion-listen", value: "[host:]port", "Be the watch: accept the phone's companion link here (host defaults to 127.0.0.1).",
            .nonEmpty("an address")) { $0.companionListen = $1 },
        .option("--companion-connect", value: "host:port", "Be the phone: keep a companion link to the watch at this address.", .nonEmpty("an address")) { $0.companionConnect = $1 },
        .option("--pairing-key", value: "file", "The pairing key both sides hold (entitlementctl pair); required with --companion-*.", .nonEmpty("a file path")) { $0.pairingKey = $1 },
        .flag("--no-fsync", "Skip fsync (benchmarks on tmpfs only: events are no longer crash-safe).") { $0.skipsFsync = $1 },
    ]

    var common = CommonOptions()
    var skipsFsync = false
    var companionListen: String?
    var companionConnect: String?
    var pairingKey: String?

    package init() {}

    /// The companion link the flags ask for; the flags go together, so this is checked when the
    /// command runs, not option by option.
    func companion() throws(UsageError) -> CompanionConfiguration? {
        switch (companionListen, companionConnect, pairingKey) {
        case (nil, nil, nil):
            return nil
        case (.some, .some, _):
            throw UsageError("--companion-listen and --companion-connect exclude each other")
        case (nil, nil, .some):
            throw UsageError("--pairing-key needs --companion-listen or --companion-connect")
        case (_, _, nil):
            throw UsageError("--companion-listen and --companion-connect need --pairing-key FILE")
        case (let listen, let connect, let key?):
            let companion = CompanionConfiguration(endpoint: listen.map { .listen($0) } ?? .connect(connect!), pairingKeyPath: key)
            do { _ = try companion.address() } catch { throw UsageError("\(error)") }
            return companion
        }
    }

    /// Runs on the main thread (the caller's), where the daemon's loop waits.
    nonisolated(nonsending) package func run() async throws {
        let companion = try companion()
        // The daemon loads (and on SIGHUP reloads) the catalog itself; a missing one is refused
        // here first so the message says where its path came from.
        try CatalogLoading.requireExists(common.catalog)
        // The group is fixed at start: from the catalog's appGroup unless a flag or the environment names it.
        let layout = common.groupIsExplicit ? common.layout : common.layout(for: try? CatalogLoading.load(common.catalog))
        let configuration = DaemonConfiguration(
            layout: layout, catalogPath: common.catalogPath, durable: !skipsFsync, companion: companion,
            log: { StandardStreams.writeError("entitlementd: \($0)\n") })
        do { try EntitlementDaemon(configuration: configuration).run() } catch { throw error.toolError }
    }
}
