import Broker
import CLISupport
import ToolSupport

/// `entitlementctl pair --out FILE`: make the companion link's pairing key.
struct PairCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl pair",
        abstract: "Make a pairing key for the companion link (32 random bytes from the kernel, mode 0600).",
        discussion: """
            Run it as the daemon's user: entitlementd refuses a key file it does not own, or one that \
            group or others may read or write (exit 65). Copy the same file to both devices and pass it \
            to each daemon with --pairing-key. Never overwrites a file (exit 65 if FILE exists).
            """,
        options: [.init("--out", value: "file", "Where to write the key (must not exist).")] + CommonOptions.options(ignoringCatalogIn: "pair"))

    var out: String?

    init(parsing scanner: inout ArgumentScanner) throws {
        out = try scanner.value("--out")
        // Accepted as every subcommand accepts them (entitlementctl --container X pair ...); a key
        // belongs to no container.
        _ = try CommonOptions(parsing: &scanner)
        let extra = try scanner.positionals()
        guard extra.isEmpty else { throw UsageError("unexpected argument '\(extra[0])'") }
    }

    nonisolated(nonsending) func run() async throws {
        guard let out else { throw UsageError("missing --out FILE") }
        do { try PairingKeyFile.create(path: out) } catch { throw error.toolError }
        StandardStreams.writeOut("wrote a pairing key to \(out)\n")
    }
}
