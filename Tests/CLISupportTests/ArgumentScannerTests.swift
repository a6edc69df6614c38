import CLISupport
import Testing

private let declared: [CommandConfiguration.Option] = [
    .init("--family", value: "family", repeatable: true, "A family."),
    .init("--format", value: "format", "A format."),
    .init("--count", value: "n", "A count."),
    .init("--follow", "Follow."),
    .init("--ascii", "ASCII."),
]

@Suite("ArgumentScanner")
struct ArgumentScannerTests {
    @Test("Options in both spellings, repeated values, flags and positionals")
    func scansEverything() throws {
        var scanner = ArgumentScanner(["--family", "systemSmall", "--family=accessoryInline", "--follow", "file.jsonl", "--format", "json"], options: declared)
        #expect(try scanner.values("--family") == ["systemSmall", "accessoryInline"])
        #expect(try scanner.value("--format") == "json")
        let follow = scanner.flag("--follow"), ascii = scanner.flag("--ascii")
        #expect(follow)
        #expect(!ascii)
        #expect(try scanner.positionals() == ["file.jsonl"])
        try scanner.finish()
        #expect(scanner.askedOptions == ["--family", "--format", "--follow", "--ascii"])
    }

    @Test("'--' makes everything after it positional, and '-' is standard input")
    func separator() throws {
        var scanner = ArgumentScanner(["-", "--", "--not-an-option"], options: declared)
        #expect(try scanner.positionals() == ["-", "--not-an-option"])
    }

    @Test("Errors name the argument, with a suggestion for a near miss", arguments: [
        (["--format"], "missing value for '--format'"),
        (["--format", "a", "--format", "b"], "'--format' given more than once"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--fromat", "json"], "unknown option '--fromat'; did you mean '--format'?"),
        (["--folow=x"], "unknown option '--folow'; did you mean '--follow'?"),
        (["--verison"], "unknown option '--verison'; did you mean '--version'?"),
    ])
    func errors(arguments: [String], message: String) {
        func scan() throws {
            var scanner = ArgumentScanner(arguments, options: declared)
            _ = try scanner.value("--format")
            _ = try scanner.positionals()
        }
        let error = #expect(throws: UsageError.self) { try scan() }
        #expect(error?.message == message)
    }

    @Test("A parsed value that does not convert is a usage error naming the expected form")
    func typedValue() {
        func scan() throws {
            var scanner = ArgumentScanner(["--count", "-3"], options: declared)
            _ = try scanner.value("--count", as: "a whole number ≥ 0") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        }
        let error = #expect(throws: UsageError.self) { try scan() }
        #expect(error?.message == "invalid value '-3' for '--count': expected a whole number ≥ 0")
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
        let scanner = ArgumentScanner(["extra"], options: declared)
        #expect(throws: UsageError.self) { try scanner.finish() }
    }

    @Test("The first positional skips options and the values of value options", arguments: [
        (["status"], 0),
        (["--container", "X", "status"], 2),
        (["--container=X", "status"], 1),
        (["--record", "check", "x"], 1),
        (["--container", "X"], nil),
        (["--", "status"], 1),
        (["-", "status"], 0),
    ] as [([String], Int?)])
    func firstPositional(arguments: [String], expected: Int?) {
        #expect(ArgumentScanner.firstPositional(in: arguments, valueOptions: ["--container"]) == expected)
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
        ("teleport", nil), ("x", nil), ("ab", nil),
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
            commandName: "tool", abstract: "Does things.",
            arguments: [.init("file", optional: true, "The input.")],
            options: [.init("--x", value: "y", "The x."), .init("--longer-name", "Another.")])
        #expect(configuration.helpText == """
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
        let configuration = CommandConfiguration(
            commandName: "tool", abstract: "Does things.",
            options: [
                .init("--a-very-long-option-name", value: "value", "Short."),
                .init("--x", String(repeating: "word ", count: 20)),
            ])
        let lines = configuration.helpText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= HelpLayout.width })
        #expect(lines.contains("  --a-very-long-option-name <value>"))
        #expect(lines.contains("                          Short."))
        #expect(lines.contains { $0.hasPrefix("  --x                     word word") })
        #expect(configuration.usage == "tool [--a-very-long-option-name <value>] [--x]")
    }
}
