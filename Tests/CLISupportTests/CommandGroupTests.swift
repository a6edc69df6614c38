import CLISupport
import Testing

/// A two-subcommand group with the shapes the real tools have: value options, flags, options
/// before or after the subcommand.
private struct SampleGroup: CommandGroup {
    static let configuration = CommandConfiguration(commandName: "tool", abstract: "A sample group.")
    static let subcommands: [any Command.Type] = [Status.self, Check.self]

    let subcommand: any Command
    init(subcommand: any Command) { self.subcommand = subcommand }
    func run() async throws { try await runSubcommand() }

    struct Status: Command {
        static let configuration = CommandConfiguration(commandName: "tool status", abstract: "Status.")
        static let options: [CommandOption<Self>] = [.option("--group", value: "id", "A group.", .text) { $0.group = $1 }]
        var group: String?
        func run() async throws {}
    }

    struct Check: Command {
        static let configuration = CommandConfiguration(
            commandName: "tool check", abstract: "Check.", arguments: [.init("feature", "A feature.")])
        static let options: [CommandOption<Self>] = [
            .option("--group", value: "id", "A group.", .text) { $0.group = $1 },
            .flag("--record", "Record.") { $0.record = $1 },
            .option("--count", value: "n", "A count.", .text) { $0.count = $1 },
        ]
        var group: String?
        var count: String?
        var record = false
        var rest: [String] = []
        mutating func parseArguments(_ scanner: inout ArgumentScanner) throws { rest = try scanner.positionals() }
        func run() async throws {}
    }
}

@Suite("Command groups")
struct CommandGroupTests {
    func usageError(_ arguments: [String]) -> UsageError? {
        #expect(throws: UsageError.self) { _ = try SampleGroup.parse(arguments) }
    }

    func cleanExit(_ arguments: [String]) -> CleanExit? {
        #expect(throws: CleanExit.self) { _ = try SampleGroup.parse(arguments) }
    }

    @Test("A value given to a flag says the flag takes no value, before or after the subcommand", arguments: [
        ["check", "x", "--record=1"], ["--record=1", "check", "x"], ["--help=x"], ["check", "--help=x"],
    ])
    func flagWithValue(arguments: [String]) {
        let name = arguments.first { $0.contains("=") }!.split(separator: "=")[0]
        #expect(usageError(arguments)?.message == "'\(name)' takes no value")
    }

    @Test("'help help' prints the group's help")
    func helpHelp() {
        #expect(cleanExit(["help", "help"])?.message == SampleGroup.helpText)
    }

    @Test("The subcommand stands before '--'; after it, every word is an argument")
    func separatorBeforeSubcommand() {
        #expect(usageError(["--group", "g", "--", "check", "x"])?.message.hasPrefix("missing subcommand") == true)
        let parsed = try? SampleGroup.parse(["--group", "g", "check", "--", "--record"])
        #expect((parsed?.subcommand as? SampleGroup.Check)?.rest == ["--record"])
        #expect((parsed?.subcommand as? SampleGroup.Check)?.record == false)
    }

    @Test("An option's value before the subcommand is skipped, not checked as an option")
    func valueThatLooksLikeAnOption() throws {
        let parsed = try SampleGroup.parse(["--group", "-x", "status"])
        #expect((parsed.subcommand as? SampleGroup.Status)?.group == "-x")
    }

    @Test("Help ranks above an unknown option before the subcommand")
    func helpBeforeUnknownOption() {
        #expect(cleanExit(["--bogus", "--help"])?.message == SampleGroup.helpText)
        #expect(usageError(["--bogsu", "status"])?.message == "unknown option '--bogsu'")
        #expect(usageError(["--grop", "g", "status"])?.message == "unknown option '--grop'; did you mean '--group'?")
    }

    @Test("A group's help lists the options every subcommand declares, before the subcommand")
    func groupUsage() {
        #expect(SampleGroup.configuration.usage(options: SampleGroup.sharedOptions, subcommands: SampleGroup.subcommandRows) == "tool [<options>] <subcommand>")
        #expect(SampleGroup.helpText.contains("\n  --group <id>            A group.\n"))
    }
}

extension CommandGroupTests {
    @Test("An option only some subcommands declare is not the group's")
    func sharedOptions() {
        #expect(SampleGroup.sharedOptions.map(\.name) == ["--group"])
        #expect(!SampleGroup.helpText.contains("--record"))
    }
}
