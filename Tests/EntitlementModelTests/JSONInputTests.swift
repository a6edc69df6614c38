import Foundation
import Testing
@testable import StoreKitFormats

@Suite struct JSONInputTests {
    @Test func parsesValuesKeepingNumberText() throws {
        let value = try JSONInput.parse(Array(#" {"a":[1,-2.5e3,true,false,null],"b":"x\"\\\/\n\u00e9\ud83d\ude00","c":1697679936049.7297} "#.utf8))
        #expect(value == .object([
            "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]),
            "b": .string("x\"\\/\né😀"),
            "c": .number("1697679936049.7297"),
        ]))
    }

    /// A large object is a dictionary: every key found, absent ones not, document order kept,
    /// and a repeated key refused however far apart the two are.
    @Test func largeObjectsFindEveryKeyAndRefuseRepeats() throws {
        for count in [1, 15, 16, 1_000, 60_000] {
            let text = "{" + (0..<count).reversed().map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
            guard case .object(let object) = try JSONInput.parse(Array(text.utf8)) else {
                Issue.record("not an object")
                return
            }
            #expect(object.keys.first == "k\(count - 1)", "document order kept")
            for index in stride(from: 0, to: count, by: max(1, count / 500)) { #expect(object["k\(index)"] == .number(String(index))) }
            for absent in ["k\(count)", "", "k", "l0", "j0"] { #expect(object[absent] == nil, "\(absent)") }
            #expect(JSONObject(object.members) == object)
            let repeated = String(text.dropLast()) + #","k0":1}"#
            #expect(throws: JSONSyntaxError.self, "\(count) members") { try JSONInput.parse(Array(repeated.utf8)) }
        }
    }

    @Test func objectsKeepDocumentOrderAndCompareAsDictionaries() throws {
        let value = try JSONInput.parse(Array(#"{"b":1,"a":{"y":true,"x":null},"c":[]}"#.utf8))
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.keys == ["b", "a", "c"])
        #expect(members.map(\.key) == ["b", "a", "c"])
        #expect(members["a"] == .object(["x": .null, "y": .bool(true)]))
        #expect(members["d"] == nil)
        #expect(value == .object(["c": .array([]), "a": .object(["y": .bool(true), "x": .null]), "b": .number("1")]))
        #expect(value != .object(["b": .number("1"), "a": .object(["y": .bool(true)]), "c": .array([])]))
        #expect(value != .object(["b": .number("1"), "a": .object(["y": .bool(true), "z": .null]), "c": .array([])]))
        let reordered = try JSONInput.parse(Array(#"{"c":[],"a":{"x":null,"y":true},"b":1}"#.utf8))
        #expect(reordered == value)
        #expect(reordered.hashValue == value.hashValue)
        #expect(try JSONInput.parse(Array("{}".utf8)) == .object([:]))
    }

    @Test func cursorEntriesAreInKeyOrderWithTheirPaths() throws {
        let root = JSONCursor(try JSONInput.parse(Array(#"{"o":{"b":1,"c":2,"a":3}}"#.utf8)))
        let entries = Array(try root.required("o").entries())
        #expect(entries.map(\.key) == ["a", "b", "c"])
        #expect(entries.map(\.cursor.path) == ["o.a", "o.b", "o.c"])
        #expect(try entries.map { (entry) throws(JSONPathError) in try entry.cursor.integer() } == [3, 1, 2])
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

extension JSONInput {
    /// An object of `members` (in no particular order), to write expected values.
    static func object(_ members: [String: JSONInput]) -> JSONInput { .object(JSONObject(members)) }
}
