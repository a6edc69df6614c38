import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// `entitlement-bench [--quick] [--format text|json]`: every benchmark in one run.
///
/// The same executable also runs its helper processes (`--role NAME …`, not for people): floor
/// and package readers, peers, the ping-pong echo and ingest producers. The product's tools and
/// the process floor are built next to it. See BENCHMARKS.md for what each number means.
public enum EntitlementBench {
    static let usage = "entitlement-bench [--quick] [--format text|json] [--catalog <file>]"
    static let help = """
        OVERVIEW: Measure propagation against the kernel's floor, fan-out, peers and costs, side by side.

        USAGE: \(usage)

        OPTIONS:
          --quick            Fewer rounds; finishes within a minute on 2 cores.
          --format <format>  text (a table; default) or json (one object on the last line; the table goes to stderr).
          --catalog <file>   Catalog JSON for the readers and the daemon (default: Shared/Catalog.json, found from the
                             working directory or above the executable).
          -h, --help         Show help information.

        Run it from the product's directory: swift run --package-path Benchmarks -c release entitlement-bench
        (the product's entitlementd, entitlementctl and widget-renderer are built next to it).
        """

    public static func main() async -> Never {
        signal(SIGPIPE, SIG_IGN)
        LiveChildren.stopOnTerminationSignals()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--role" {
            await runRole(Array(arguments.dropFirst()))
        }
        let options: Options
        do { options = try Options(arguments) } catch {
            StandardStreams.writeError("Error: \(error.message)\nUsage: \(usage)\n  See 'entitlement-bench --help' for more information.\n")
            exit(UsageError.exitCode)
        }
        if options.help {
            StandardStreams.writeOut(help + "\n")
            exit(0)
        }
        guard let catalogPath = options.catalogPath ?? locateDefaultCatalog() else {
            StandardStreams.writeError("entitlement-bench: Shared/Catalog.json not found from the working directory or the executable; pass --catalog\n")
            exit(UsageError.exitCode)
        }
        let suite = BenchmarkSuite(plan: options.plan, catalogPath: catalogPath) { StandardStreams.writeError($0 + "\n") }
        let results = suite.run(mode: options.mode)
        let report = BenchmarkReport(results: results)
        if options.json {
            // The table goes to stderr with the progress lines, so one run gives both and stdout is the JSON alone.
            StandardStreams.writeError(report.text)
            StandardStreams.writeOut(report.json.serialized + "\n")
        } else {
            StandardStreams.writeOut(report.text)
        }
        exit(results.errors.isEmpty ? 0 : 1)
    }

    struct Options {
        var plan = BenchmarkPlan.full
        var mode = "full"
        var json = false
        var help = false
        var catalogPath: String?

        init(_ arguments: [String]) throws(UsageError) {
            var index = 0
            func value(_ name: String) throws(UsageError) -> String {
                index += 1
                guard index < arguments.count else { throw UsageError("Missing value for '\(name)'") }
                return arguments[index]
            }
            while index < arguments.count {
                switch arguments[index] {
                case "--quick": (plan, mode) = (.quick, "quick")
                case "--smoke": (plan, mode) = (.smoke, "smoke")
                case "-h", "--help": help = true
                case "--format":
                    switch try value("--format") {
                    case "json": json = true
                    case "text": json = false
                    case let other: throw UsageError("Unknown format '\(other)' (values: text, json)")
                    }
                case "--catalog": catalogPath = try value("--catalog")
                case let other: throw UsageError("Unknown option '\(other)'")
                }
                index += 1
            }
        }
    }

    /// `Shared/Catalog.json` in the working directory, or in a directory above the executable
    /// (the product's root, for `Benchmarks/.build/<triple>/release/entitlement-bench`).
    static func locateDefaultCatalog() -> String? {
        let relative = "Shared/Catalog.json"
        if access(relative, R_OK) == 0 { return FileManager.default.currentDirectoryPath + "/" + relative }
        var directory = SelfExecutable.directory
        while directory.count > 1, let slash = directory.lastIndex(of: "/") {
            directory = String(directory[..<slash])
            let candidate = (directory.isEmpty ? "" : directory) + "/" + relative
            if access(candidate, R_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs one helper role; never returns.
    static func runRole(_ arguments: [String]) async -> Never {
        func argument(_ index: Int) -> String { index < arguments.count ? arguments[index] : "" }
        do {
            switch argument(0) {
            case "floor-reader":
                try RawInotifyReader.run(directory: argument(1), name: argument(2), index: Int(argument(3)) ?? 0)
            case "package-reader":
                try PackageReader.run(container: argument(1), group: argument(2), catalogPath: argument(3), index: Int(argument(4)) ?? 0)
            case "stat-poller":
                try StatPollingReader.run(container: argument(1), group: argument(2), catalogPath: argument(3), index: Int(argument(4)) ?? 0)
            case "defaults-reader":
                UserDefaultsPeer.runReader(suite: argument(1), index: Int(argument(2)) ?? 0)
            case "profile":
                // `--role profile check|checkfull|decode1|decode100|decode1000|unchanged|ingest|ingest-signed|signatures`: one cost in a loop for ~5 s, to run under perf or callgrind;
                // `--role profile propagation-tmpfs|propagation-durable [rounds]`: only that mode's floor and package rows;
                // `--role profile purchase [rounds]`: the purchase row and its floor;
                // `--role profile fanout-N [rounds]`: the fan-out row for N readers and its floor;
                // `--role profile render [runs]`: the one-shot render row and its floor (default 100 runs);
                // `--role profile decode-signed [events]`: the daemon's decoding of verified events, in process (µs of CPU per event);
                // `--role profile steps-N`: the CPU time of each in-process step of publish → entry with N entitlements;
                // `--role profile ingest-signed`: the quick verified ingest row with its processes.
                let catalogPath = locateDefaultCatalog() ?? "Shared/Catalog.json"
                if argument(1) == "decode-signed" {
                    let perEvent = try VerifiedDecodeProfile.run(events: Int(argument(2)) ?? 20_000, catalogPath: catalogPath)
                    print("decode-signed: \(perEvent) µs of CPU per event")
                } else if argument(1).hasPrefix("steps-") {
                    try PublishSteps.run(entitlements: Int(argument(1).dropFirst("steps-".count)) ?? 100, catalogPath: catalogPath)
                } else if argument(1) == "render" {
                    try DaemonBenchmarks.profileRender(runs: max(1, Int(argument(2)) ?? 100), catalogPath: catalogPath)
                } else if argument(1).hasPrefix("propagation") || argument(1).hasPrefix("fanout-") || argument(1) == "purchase" {
                    try PropagationProfile.run(argument(1), rounds: Int(argument(2)), catalogPath: catalogPath)
                } else {
                    try CostBenchmarks.profile(argument(1), catalogPath: catalogPath)
                }
                exit(0)
            case "restart":
                // `--role restart [--quick | --targets] [--directory DIR]`: restart time and memory after long histories (a table on stdout).
                try RestartBenchmark.run(Array(arguments.dropFirst()))
                exit(0)
            case "pong":
                PipePingPong.pong()
            case "ingest-producer":
                var values: [String: String] = [:]
                var index = 1
                while index + 1 < arguments.count {
                    values[arguments[index]] = arguments[index + 1]
                    index += 2
                }
                IngestBenchmark.runProducer(
                    container: values["--container"] ?? "", catalogPath: values["--catalog"] ?? "", index: Int(values["--index"] ?? "") ?? 0,
                    calls: Int(values["--calls"] ?? "") ?? 1, batch: Int(values["--batch"] ?? "") ?? 1, signedVectors: values["--signed"] ?? "")
            default:
                break
            }
            StandardStreams.writeError("entitlement-bench: unknown helper role '\(arguments.joined(separator: " "))'\n")
            exit(UsageError.exitCode)
        } catch {
            StandardStreams.writeError("entitlement-bench \(argument(0)): \(error)\n")
            exit(1)
        }
    }
}
