#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// A command-line command: parsed from arguments, then run. Parsing is separate from running so
/// tests can parse argument arrays without starting anything.
public protocol Command: Sendable {
    static var configuration: CommandConfiguration { get }
    /// Parses `scanner`; throws ``UsageError`` for a wrong command line. Help is handled before.
    init(parsing scanner: inout ArgumentScanner) throws
    /// Parses a whole command line, help included. The default handles `-h`/`--help`, then
    /// ``init(parsing:)``, then rejects leftovers; commands with subcommands override it.
    static func parse(_ arguments: [String]) throws -> Self
    /// Runs the command. Throw ``ToolError`` for a failure with a contract exit code, ``ExitCode``
    /// after printing your own message, ``CleanExit`` to print to stdout and exit 0.
    func run() async throws
}

extension Command {
    /// Parses `arguments` (help included) into a command, or throws the error `main` would report.
    public static func parse(_ arguments: [String]) throws -> Self {
        var scanner = ArgumentScanner(arguments)
        if scanner.wantsHelp { throw CleanExit(configuration.helpText) }
        let command = try Self(parsing: &scanner)
        try scanner.finish()
        return command
    }

    /// Parses the process arguments (or `arguments`), runs, and exits with the contract's code:
    /// 0 on success, 64 with the usage line for ``UsageError``, the error's code for
    /// ``ToolError`` (one line on stderr), and 1 with `Error: …` for anything else.
    public static func main(_ arguments: [String]? = nil) async -> Never {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        let code: Int32
        do {
            try await parse(arguments).run()
            code = 0
        } catch {
            code = report(error)
        }
        exit(code)
    }

    /// Writes the message for `error` to the right stream and returns the exit status.
    public static func report(_ error: any Error) -> Int32 {
        let name = configuration.commandName
        switch error {
        case let clean as CleanExit:
            StandardStreams.writeOut(clean.message.hasSuffix("\n") ? clean.message : clean.message + "\n")
            return 0
        case let usage as UsageError:
            StandardStreams.writeError(
                "Error: \(usage.message)\nUsage: \(configuration.usage)\n  See '\(name) --help' for more information.\n")
            return ExitCode.usage.rawValue
        case let tool as ToolError:
            StandardStreams.writeError("\(name): \(tool.message)\n")
            return tool.code.rawValue
        case let exit as ExitCode:
            return exit.rawValue
        default:
            StandardStreams.writeError("\(name): Error: \(error)\n")
            return 1
        }
    }
}
