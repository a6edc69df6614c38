import EntitlementDefaults
import Entitlements
import Foundation
import SharedDefaults

/// `entitlement-stress MODE [options]`: tight publish and read loops, for people who want to watch
/// the shared file under abuse, with Foundation's `UserDefaults` as the contrast writer.
///
/// The product's own crash-torture and fault harnesses are its end-to-end tests (`TortureTests`,
/// `DaemonFaultTests`); these loops are the lab's.
public enum EntitlementStress {
    static let usage = "entitlement-stress publish|read|foundation-publish [--count <n>] [--start <n>] [--no-fsync] [--until-stopped] [--container <dir>] [--group <id>]"
    static let help = """
        OVERVIEW: Publish or read snapshots in tight loops (a testing tool, not part of the contract).

        USAGE: \(usage)

        MODES:
          publish             Write --count snapshots (generations --start…) through SharedDefaults, each one atomic replace.
          read                Read in a tight loop until generation --count is seen (or until SIGTERM with --until-stopped);
                              print one JSON line (reads, decoded, refused, missing, backwards, lastGeneration); exit 0 only
                              if nothing was refused or went backwards.
          foundation-publish  The same as publish, through Foundation's UserDefaults(suiteName:) (for contrast); prints
                              "ack N" after each synchronize() that returned true. On Linux Foundation keeps a suite at
                              $XDG_CONFIG_HOME/<suite>.plist: point XDG_CONFIG_HOME at <container>/Library/Preferences.

        OPTIONS:
          --count <n>         Generations to publish, or the generation to read up to (default 1000).
          --start <n>         publish: the first generation (default 1).
          --no-fsync          publish: without fsync.
          --until-stopped     read: keep reading until SIGTERM or SIGINT.
          --container <dir>   The App Group container (default: the current directory).
          --group <id>        The app-group id (default group.com.irenews.geko).
          -h, --help          Show help information.
        """

    enum Mode: String { case publish, read, foundationPublish = "foundation-publish" }

    struct Options {
        var mode: Mode?
        var count: Int64 = 1000
        var start: Int64 = 1
        var durable = true
        var untilStopped = false
        var layout = ContainerLayout(container: FileManager.default.currentDirectoryPath, group: "group.com.irenews.geko")
        var help = false

        init(_ arguments: [String]) throws(StressUsageError) {
            var index = 0
            func value(_ name: String) throws(StressUsageError) -> String {
                index += 1
                guard index < arguments.count else { throw StressUsageError("Missing value for '\(name)'") }
                return arguments[index]
            }
            func positive(_ name: String) throws(StressUsageError) -> Int64 {
                let text = try value(name)
                guard let number = Int64(text), number > 0 else { throw StressUsageError("'\(text)' for \(name) is not a positive whole number") }
                return number
            }
            while index < arguments.count {
                switch arguments[index] {
                case "--count": count = try positive("--count")
                case "--start": start = try positive("--start")
                case "--no-fsync": durable = false
                case "--until-stopped": untilStopped = true
                case "--container": layout.container = try value("--container")
                case "--group": layout.group = try value("--group")
                case "-h", "--help": help = true
                case let word where mode == nil && !word.hasPrefix("-"):
                    guard let parsed = Mode(rawValue: word) else { throw StressUsageError("Unknown mode '\(word)'") }
                    mode = parsed
                case let other: throw StressUsageError("Unknown option '\(other)'")
                }
                index += 1
            }
            if !help && mode == nil { throw StressUsageError("expected a mode: publish, read or foundation-publish") }
        }
    }

    public static func main() async -> Never {
        let options: Options
        do { options = try Options(Array(CommandLine.arguments.dropFirst())) } catch {
            Output.error("Error: \(error.message)\nUsage: \(usage)\n")
            exit(64)
        }
        if options.help {
            Output.out(help + "\n")
            exit(0)
        }
        switch options.mode {
        case .publish:
            let store = SharedDefaults(suiteName: options.layout.group, container: options.layout.container, options: .init(durable: options.durable))
            let start = Date()
            for generation in options.start...(options.start + options.count - 1) {
                do { try store.writeSnapshot(StressSnapshot.make(generation: generation, start: start)) } catch {
                    Output.error("entitlement-stress: \(error)\n")
                    exit(75)
                }
            }
            Output.out("published \(options.count)\n")
        case .foundationPublish:
            FoundationPublisher.run(count: options.count, suiteName: options.layout.group)
        case .read:
            let summary = StressReader(layout: options.layout).run(upTo: options.untilStopped ? nil : options.count)
            Output.out(summary.json + "\n")
            if summary.refused > 0 || summary.backwards > 0 || (!options.untilStopped && summary.lastGeneration < options.count) { exit(1) }
        case nil:
            break
        }
        exit(0)
    }
}

/// A command line `entitlement-stress` does not understand (exit 64).
struct StressUsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Whole writes to standard output and error, flushed at once (a harness reads them line by line).
enum Output {
    static func out(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
    static func error(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}

/// The snapshot the stress writers publish: alternately unlocked and locked, so a torn read
/// that mixed two generations could not pass for either.
enum StressSnapshot {
    static func make(generation: Int64, start: Date) -> EntitlementSnapshot {
        let status = EntitlementStatus(
            active: generation % 2 == 0, state: generation % 2 == 0 ? .subscribed : .expired,
            expiresAt: start.addingTimeInterval(3600), productId: "stress.\(generation)")
        return EntitlementSnapshot(
            generation: generation, issuedAt: start.addingTimeInterval(Double(generation) / 1000),
            nextTransition: nil, entitlements: ["plus": status, "pad": status])
    }
}
