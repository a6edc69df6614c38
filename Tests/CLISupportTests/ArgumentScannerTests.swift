import CLISupport
import Testing

@Suite("ArgumentScanner")
struct ArgumentScannerTests {
    @Test("Options in both spellings, repeated values, flags and positionals")
    func scansEverything() throws {
        var scanner = ArgumentScanner(["--family", "systemSmall", "--family=accessoryInline", "--follow", "file.jsonl", "--format", "json"])
        #expect(try scanner.values("--family") == ["systemSmall", "accessoryInline"])
        #expect(try scanner.value("--format") == "json")
        let follow = scanner.flag("--follow"), ascii = scanner.flag("--ascii")
        #expect(follow)
        #expect(!ascii)
        #expect(try scanner.positionals() == ["file.jsonl"])
        try scanner.finish()
    }

    @Test("'--' makes everything after it positional, and '-' is standard input")
    func separator() throws {
        var scanner = ArgumentScanner(["-", "--", "--not-an-option"])
        #expect(try scanner.positionals() == ["-", "--not-an-option"])
    }

    @Test("Errors name the argument", arguments: [
        (["--format"], "Missing value for '--format'"),
        (["--format", "a", "--format", "b"], "'--format' given more than once"),
        (["--bogus"], "Unknown option '--bogus'"),
    ])
    func errors(arguments: [String], message: String) {
        func scan() throws {
            var scanner = ArgumentScanner(arguments)
            _ = try scanner.value("--format")
            _ = try scanner.positionals()
        }
        let error = #expect(throws: UsageError.self) { try scan() }
        #expect(error?.message == message)
    }

    @Test("A parsed value that does not convert is a usage error naming the expected form")
    func typedValue() {
        func scan() throws {
            var scanner = ArgumentScanner(["--count", "-3"])
            _ = try scanner.value("--count", as: "a whole number ≥ 0") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        }
        let error = #expect(throws: UsageError.self) { try scan() }
        #expect(error?.message == "Invalid value '-3' for '--count': expected a whole number ≥ 0")
    }

    @Test("Help is detected before '--' only")
    func help() {
        #expect(ArgumentScanner(["status", "--help"]).wantsHelp)
        #expect(ArgumentScanner(["-h"]).wantsHelp)
        #expect(!ArgumentScanner(["--", "--help"]).wantsHelp)
    }

    @Test("Leftover arguments fail finish()")
    func leftovers() {
        let scanner = ArgumentScanner(["extra"])
        #expect(throws: UsageError.self) { try scanner.finish() }
    }
}

@Suite("Help text")
struct HelpTextTests {
    @Test("Sections and an aligned second column")
    func layout() {
        let configuration = CommandConfiguration(
            commandName: "tool", abstract: "Does things.", usage: "tool [--x <y>]",
            options: [.init("--x <y>", "The x."), .init("--longer-name", "Another.")])
        #expect(configuration.helpText == """
            OVERVIEW: Does things.

            USAGE: tool [--x <y>]

            OPTIONS:
              --x <y>        The x.
              --longer-name  Another.
              -h, --help     Show help information.

            """)
    }
}
