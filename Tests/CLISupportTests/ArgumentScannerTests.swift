import CLISupport
import Testing

/// A command with every shape of declared option: repeated values, a plain value, a parsed
/// value with a default, flags, and a group with a check of its own.
private struct Sample: Command {
    static let configuration = CommandConfiguration(commandName: "tool", abstract: "A sample.")
    static let options: [CommandOption<Self>] = [
        .repeatable("--family", value: "family", "A family.", .text) { $0.families = $1 },
        .option("--format", value: "format", "A format.", .text) { $0.format = $1 },
        .option("--count", value: "n", "A count.", .wholeNumber(atLeast: 0)) { $0.count = $1 },
        .flag("--follow", "Follow.") { $0.follow = $1 },
        .flag("--ascii", "ASCII.") { $0.ascii = $1 },
        .group { $0.range = $1 },
    ]

    struct Range: OptionGroup {
        static let options: [CommandOption<Self>] = [
            .option("--low", value: "n", "Low.", .wholeNumber(atLeast: 0)) { $0.low = $1 },
            .option("--high", value: "n", "High.", .wholeNumber(atLeast: 0)) { $0.high = $1 },
        ]
        var low = 0
        var high = 10
        mutating func validate() throws(UsageError) {
            guard low <= high else { throw UsageError("'--low' above '--high'") }
        }
    }

    var families: [String] = []
    var format: String?
    var count = 7
    var follow = false
    var ascii = false
    var range = Range()
    var rest: [String] = []

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws { rest = try scanner.positionals() }
    func run() async throws {}
}

@Suite("Declared options")
struct ArgumentScannerTests {
    @Test("Options in both spellings, repeated values, flags, defaults and positionals")
    func scansEverything() throws {
        let sample = try Sample.parse(["--family", "systemSmall", "--family=accessoryInline", "--follow", "file.jsonl", "--format", "json", "--high=3"])
        #expect(sample.families == ["systemSmall", "accessoryInline"])
        #expect(sample.format == "json")
        #expect(sample.follow)
        #expect(!sample.ascii)
        #expect(sample.count == 7)
        #expect(sample.range.low == 0)
        #expect(sample.range.high == 3)
        #expect(sample.rest == ["file.jsonl"])
    }

    @Test("'--' makes everything after it positional, and '-' is standard input")
    func separator() throws {
        #expect(try Sample.parse(["-", "--", "--not-an-option"]).rest == ["-", "--not-an-option"])
    }

    @Test("Errors name the argument, with a suggestion for a near miss", arguments: [
        (["--format"], "missing value for '--format'"),
        (["--format", "a", "--format", "b"], "'--format' given more than once"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--fromat", "json"], "unknown option '--fromat'; did you mean '--format'?"),
        (["--folow=x"], "unknown option '--folow'; did you mean '--follow'?"),
        (["--verison"], "unknown option '--verison'; did you mean '--version'?"),
        (["--follow=1"], "'--follow' takes no value"),
        (["--help=x"], "'--help' takes no value"),
        (["--count", "-3"], "invalid value '-3' for '--count': expected a whole number ≥ 0"),
        (["--low", "5", "--high", "4"], "'--low' above '--high'"),
    ])
    func errors(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try Sample.parse(arguments) }
        #expect(error?.message == message)
        #expect(error?.command == "tool")
    }

    @Test("Help lists every declared option, the group's among them, in declaration order")
    func helpFromDeclarations() {
        #expect(Sample.helpText.contains("""
            OPTIONS:
              --family <family>       A family.
              --format <format>       A format.
              --count <n>             A count.
              --follow                Follow.
              --ascii                 ASCII.
              --low <n>               Low.
              --high <n>              High.
              --version               Show the version.
            """))
        #expect(Sample.configuration.usage(options: Sample.optionSpecs).hasPrefix("tool [--family <family> ...] [--format <format>]"))
    }

    @Test("Help and version are detected before '--' only")
    func helpAndVersion() {
        #expect(ArgumentScanner(["status", "--help"], options: []).wantsHelp)
        #expect(ArgumentScanner(["-h"], options: []).wantsHelp)
        #expect(!ArgumentScanner(["--", "--help"], options: []).wantsHelp)
        #expect(ArgumentScanner(["--version"], options: []).wantsVersion)
        #expect(!ArgumentScanner(["--", "--version"], options: []).wantsVersion)
    }

    @Test("Leftover arguments fail finish()")
    func leftovers() {
        let scanner = ArgumentScanner(["extra"], options: [])
        #expect(throws: UsageError.self) { try scanner.finish() }
    }
}

@Suite("Suggestions")
struct SuggestionTests {
    @Test("Edit distance counts a swap of neighbours as one edit")
    func distance() {
        #expect(Suggestion.editDistance("status", "stauts") == 1)
        #expect(Suggestion.editDistance("widget", "widgets") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    }

    @Test("Only near misses are suggested", arguments: [
        ("stauts", "status"), ("widget", "widgets"), ("chekc", "check"), ("systemSmal", "systemSmall"),
        ("teleport", nil), ("x", nil), ("ab", nil), ("status", nil),
    ] as [(String, String?)])
    func closest(word: String, expected: String?) {
        let candidates = ["status", "check", "ingest", "widgets", "systemSmall", "sync", "ac"]
        #expect(Suggestion.closest(to: word, among: candidates) == expected)
    }
}

@Suite("Help text")
struct HelpTextTests {
    @Test("Sections, a generated usage line and an aligned second column")
    func layout() {
        let configuration = CommandConfiguration(
            commandName: "tool", abstract: "Does things.", arguments: [.init("file", optional: true, "The input.")])
        #expect(configuration.helpText(options: [.init("--x", value: "y", "The x."), .init("--longer-name", "Another.")]) == """
            OVERVIEW: Does things.

            USAGE: tool [<file>] [--x <y>] [--longer-name]

            ARGUMENTS:
              <file>                  The input.

            OPTIONS:
              --x <y>                 The x.
              --longer-name           Another.
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    @Test("Long descriptions wrap under their column; long names put the description on the next line")
    func wrapping() {
        let configuration = CommandConfiguration(commandName: "tool", abstract: "Does things.")
        let options: [CommandConfiguration.Option] = [
            .init("--a-very-long-option-name", value: "value", "Short."),
            .init("--x", String(repeating: "word ", count: 20)),
        ]
        let lines = configuration.helpText(options: options).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= HelpLayout.width })
        #expect(lines.contains("  --a-very-long-option-name <value>"))
        #expect(lines.contains("                          Short."))
        #expect(lines.contains { $0.hasPrefix("  --x                     word word") })
        #expect(configuration.usage(options: options) == "tool [--a-very-long-option-name <value>] [--x]")
    }

    @Test("A quoted example is never broken across lines")
    func quotedExampleStaysWhole() {
        let configuration = CommandConfiguration(
            commandName: "tool", abstract: "Does things.",
            discussion: String(repeating: "word ", count: 12) + "as in 'tool --option VALUE status' and the tool's own words.")
        let help = configuration.helpText(options: [])
        #expect(help.split(separator: "\n").contains { $0.contains("'tool --option VALUE status'") }, "\(help)")
    }

    @Test("Help wraps at the width it is given")
    func width() {
        let configuration = CommandConfiguration(commandName: "tool", abstract: "Does things.")
        let narrow = configuration.helpText(options: [.init("--x", String(repeating: "word ", count: 20))], width: 50).split(separator: "\n")
        #expect(narrow.allSatisfy { $0.count <= 50 })
        #expect(narrow.contains { $0.count > 45 })
        #expect(HelpLayout.width(environment: ["COLUMNS": "50"]) == 50)
        #expect(HelpLayout.width(environment: [:]) == 80)
        #expect(HelpLayout.width(environment: ["COLUMNS": "wide"]) == 80)
    }
}
