import Broker
import CLISupport
import EntitlementTools

/// `entitlementctl pair --out FILE`: make the companion link's pairing key.
struct PairCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl pair",
        abstract: "Make a pairing key for the companion link (32 random bytes from the kernel, mode 0600).",
        discussion: """
            Run it as the daemon's user: entitlementd refuses a key file it does not own, or one that \
            group or others may read or write (exit 65). Copy the same file to both devices and pass it \
            to each daemon with --pairing-key. Never overwrites a file (exit 65 if FILE exists).
            """)

    static let options: [CommandOption<Self>] = [
        .option("--out", value: "file", "Where to write the key (must not exist).", .nonEmpty("a file path")) { $0.out = $1 },
        // Accepted as every subcommand accepts them (entitlementctl --container X pair ...); a key
        // belongs to no container.
        .group(CommonOptions.options(ignoringCatalogIn: "pair")) { $0.common = $1 },
    ]

    var out: String?
    var common = CommonOptions()

    nonisolated(nonsending) func run() async throws {
        guard let out else { throw UsageError("missing --out FILE") }
        do { try PairingKeyFile.create(path: out) } catch { throw error.toolError }
        StandardStreams.writeOut("wrote a pairing key to \(out)\n")
    }
}
