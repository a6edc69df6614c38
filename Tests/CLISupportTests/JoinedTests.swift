import CLISupport
import Testing

@Suite("[String].joined(by:)")
struct JoinedTests {
    @Test("The same text as joined(separator:)", arguments: [[], [""], ["a"], ["", ""], ["a", "b", "c"], ["systemSmall", "é", "\u{1F600}"]])
    func sameText(elements: [String]) {
        for separator in ["", ", ", "\n\n"] {
            #expect(elements.joined(by: separator) == elements.joined(separator: separator))
        }
    }
}
