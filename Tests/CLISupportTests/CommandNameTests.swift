@testable import CLISupport
import Testing

/// A command's tool name and the name a group gives its subcommand: the first and the last
/// space-separated word of `commandName`, as `split(separator: " ")` finds them.
struct CommandNameTests {
    @Test(arguments: [
        ("entitlementctl ingest", "entitlementctl", "ingest"),
        ("tool", "tool", "tool"),
        ("  tool   sub  ", "tool", "sub"),
        ("a b c", "a", "c"),
        ("", "", ""),
        ("   ", "   ", ""),
        ("wïdget rénder", "wïdget", "rénder"),
    ])
    func words(name: String, tool: String, last: String) {
        let configuration = CommandConfiguration(commandName: name, abstract: "")
        #expect(configuration.toolName == tool)
        #expect(configuration.lastWord == last)
        let words = name.split(separator: " ")
        #expect(configuration.toolName == String(words.first ?? Substring(name)))
        #expect(configuration.lastWord == String(words.last ?? ""))
    }
}
