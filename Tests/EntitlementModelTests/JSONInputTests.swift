import Foundation
import Testing
@testable import EntitlementModel

@Suite struct JSONInputTests {
    @Test func parsesValuesKeepingNumberText() throws {
        let value = try JSONInput.parse(Array(#" {"a":[1,-2.5e3,true,false,null],"b":"x\"\\\/\n\u00e9\ud83d\ude00","c":1697679936049.7297} "#.utf8))
        #expect(value == .object([
            "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]),
            "b": .string("x\"\\/\né😀"),
            "c": .number("1697679936049.7297"),
        ]))
    }

    @Test(arguments: ["", "{", "{\"a\":}", "[1,]", "01", "1.", "\"\\x\"", "\"\\ud800\"", "{} {}", "\"a\u{01}\"", "nul", "{\"a\" 1}"])
    func refusesMalformed(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONInput.parse(Array(text.utf8)) }
    }

    @Test func refusesExcessiveNesting() {
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        #expect(throws: JSONSyntaxError.self) { try JSONInput.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONInput.parse(Array(fine.utf8)) }
    }
}
