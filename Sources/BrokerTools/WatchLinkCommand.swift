import Broker
import CLISupport
import EntitlementDefaults
import FoundationEssentials
import SystemShims
import EntitlementTools

/// `entitlementctl watch-link down|up`: simulate the watch going out of range and coming back.
struct WatchLinkCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl watch-link",
        abstract: "Simulate the watch going out of range (down) and coming back (up).",
        discussion: "While down, entitlementd --watch-container delivers nothing; on up it delivers only the latest snapshot.",
        arguments: [.init("state", "The new state of the link. (values: down, up)")])

    static let options: [CommandOption<Self>] = [.group(\.common, CommonOptions.options(ignoringCatalogIn: "watch-link"))]

    var common = CommonOptions()
    var up = false

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let rest = try scanner.positionals()
        guard rest.count == 1, rest[0] == "down" || rest[0] == "up" else {
            throw UsageError(rest.isEmpty ? "missing state ('down' or 'up')" : "expected 'down' or 'up', got '\(rest.joined(separator: " "))'")
        }
        up = rest[0] == "up"
    }

    nonisolated(nonsending) func run() async throws {
        let layout = common.layout
        if up {
            do {
                try FileSystem.unlink(layout.watchLinkPath)
            } catch .noSuchFileOrDirectory {
                // Already up.
            } catch {
                throw ToolError(ExitCode(failedCall: error), "\(layout.watchLinkPath): unlink failed: \(error.message)")
            }
        } else {
            do {
                try FileSystem.makeDirectories(path: layout.brokerDirectory, mode: ContainerLayout.directoryMode)
                try AtomicFile.replace(
                    directory: layout.brokerDirectory, name: "watch-link", bytes: Array("down\n".utf8),
                    mode: ContainerLayout.fileMode, durable: true)
            } catch {
                throw ToolError(ExitCode(failedCall: error), "\(layout.watchLinkPath): cannot create: \(error)")
            }
        }
        StandardStreams.writeOut("watch link \(up ? "up" : "down")\n")
    }
}
