import Broker
import CLISupport
import StoreKitFormats
import EntitlementTools

/// `entitlementctl companion`: the state of the daemon's companion link.
struct CompanionCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl companion",
        abstract: "Print the state of the daemon's companion link.",
        discussion: """
            Reads Library/Broker/companion-status.json, which entitlementd --companion-listen or \
            --companion-connect keeps. JSON: {"connected", "peer", "lastSyncAt", "pendingOut", "pendingIn"}: \
            connected, an authenticated session is up (false whenever no daemon runs); peer, its address or null; \
            lastSyncAt, the last authenticated exchange (heartbeats count) or null; pendingOut, events accepted \
            here the peer has not acknowledged; pendingIn, events received from the peer not yet applied here. \
            Exit 69 when the container's daemon never ran with a companion link.
            """)

    static let options: [CommandOption<Self>] = [
        OutputFormat.option { $0.format = $1 }, .group(CommonOptions.options(ignoringCatalogIn: "companion")) { $0.common = $1 },
    ]

    var common = CommonOptions()
    var format = OutputFormat.text

    nonisolated(nonsending) func run() async throws {
        let layout = common.layout
        guard var status = CompanionStatus.load(path: layout.companionStatusPath) else {
            throw ToolError(.unavailable, "\(layout.companionStatusPath): no companion link state (is entitlementd running with --companion-listen or --companion-connect?)")
        }
        // A daemon killed while connected left its last word behind: no daemon, no session.
        if !DaemonLock.isHeld(path: layout.daemonLockPath) {
            status.connected = false
            status.peer = nil
        }
        switch format {
        case .json:
            StandardStreams.writeOut(status.json + "\n")
        case .text:
            let link = status.connected ? "connected to \(status.peer ?? "?")" : "not connected"
            let synced = status.lastSyncAt.map { "last sync \(ISO8601.string(from: $0))" } ?? "never synced"
            StandardStreams.writeOut("companion: \(link), \(synced), \(status.pendingOut) events to send, \(status.pendingIn) received not yet applied\n")
        }
    }
}
