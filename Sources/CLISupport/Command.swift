import FoundationEssentials
import SystemShims

/// A command a tool's `main` runs: parsed from a whole command line, then run. Parsing is
/// separate from running so tests can parse argument arrays without starting anything. A
/// ``Command`` parses its own options; a ``CommandGroup`` hands them to a subcommand.
package protocol RunnableCommand: Sendable {
    static var configuration: CommandConfiguration { get }
    /// The help screen (`--help`), generated from ``configuration`` and the declared options.
    static var helpText: String { get }
    /// Parses a whole command line, help and version included; throws ``UsageError`` for a
    /// wrong one and ``CleanExit`` for help and version.
    static func parse(_ arguments: [String]) throws -> Self
    /// Runs the command. Throw ``ToolError`` for a failure with a contract exit code,
    /// ``UsageError`` for a wrong command line found only now (an unknown feature, a missing
    /// catalog), ``ExitCode`` after printing your own message, ``CleanExit`` to print to stdout
    /// and exit 0.
    ///
    /// It may run on its caller's executor (the main thread when a tool's `main.swift` starts it):
    /// a command that is all synchronous work then starts no thread of the concurrency pool. A
    /// conformer that must not run there declares its `run()` without `nonisolated(nonsending)`.
    nonisolated(nonsending) func run() async throws
}

/// A command whose options are declared once, as ``CommandOption``s over its own properties,
/// in the manner of swift-argument-parser: parsing starts from ``init()`` (every option at its
/// default), reads each declared option into its property, then hands the positional arguments
/// to ``parseArguments(_:)``.
package protocol Command: RunnableCommand {
    /// The command with every option at its default.
    init()
    /// The command's options, in the order help lists them.
    static var options: [CommandOption<Self>] { get }
    /// Reads the positional arguments (``ArgumentScanner/positionals()``) and checks what
    /// depends on several options; runs once every option is read. Throws ``UsageError`` for a
    /// wrong command line. The default takes none: a positional argument is then an error.
    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws
}

extension Command {
    package mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {}

    /// Every option's spelling, placeholder and help, in declaration order.
    package static var optionSpecs: [CommandConfiguration.Option] { CommandOption.specs(of: options) }

    package static var helpText: String { configuration.helpText(options: optionSpecs) }

    /// Handles `-h`/`--help` and `--version`, then reads every declared option and the
    /// positional arguments, then rejects leftovers; a ``UsageError`` names this command's help.
    package static func parse(_ arguments: [String]) throws -> Self {
        let options = options
        var scanner = ArgumentScanner(arguments, options: CommandOption.specs(of: options))
        if scanner.wantsHelp { throw CleanExit(helpText) }
        if scanner.wantsVersion { throw CleanExit(versionText) }
        do {
            var command = Self()
            for option in options { try option.read(&scanner, &command) }
            try command.parseArguments(&scanner)
            try scanner.finish()
            return command
        } catch let error as UsageError {
            throw error.attributed(to: configuration.commandName)
        }
    }
}

extension RunnableCommand {
    /// `entitlementctl 1.0.0`.
    package static var versionText: String { "\(configuration.toolName) \(ToolVersion.current)\n" }

    /// Parses the process arguments (or `arguments`), runs, and exits with the contract's code:
    /// 0 on success, 64 for a ``UsageError`` (one line and a hint), the error's code for
    /// ``ToolError`` (one line on stderr), and 1 with `tool: error: …` for anything else. Runs on
    /// its caller's executor.
    nonisolated(nonsending) package static func main(_ arguments: [String]? = nil) async -> Never {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        let code: Int32
        do {
            try await parse(arguments).run()
            code = 0
        } catch {
            code = report(error)
        }
        ProcessExit.normally(status: code)
    }

    /// The text `error` prints, the stream it goes to and the exit status.
    package static func message(for error: any Error) -> (text: String, toStandardError: Bool, status: Int32) {
        let tool = configuration.toolName
        switch error {
        case let clean as CleanExit:
            return (clean.message.hasSuffix("\n") ? clean.message : clean.message + "\n", false, 0)
        case let usage as UsageError:
            let command = usage.command ?? configuration.commandName
            return ("\(tool): error: \(usage.message)\nSee '\(command) --help'.\n", true, ExitCode.usage.rawValue)
        case let failure as ToolError:
            return ("\(tool): \(failure.message)\n", true, failure.code.rawValue)
        case let exit as ExitCode:
            return ("", true, exit.rawValue)
        default:
            return ("\(tool): error: \(error)\n", true, 1)
        }
    }

    /// Writes the message for `error` to the right stream and returns the exit status.
    package static func report(_ error: any Error) -> Int32 {
        let (text, toStandardError, status) = message(for: error)
        if !text.isEmpty {
            if toStandardError { StandardStreams.writeError(text) } else { StandardStreams.writeOut(text) }
        }
        return status
    }
}
