import Foundation
import StoreKitFormats
import Testing

/// `JSONValue.serialized` is what every tool's `--format json` prints and what golden files hold:
/// compact, keys in code-point order, strings escaped as JSON requires and nothing more.
struct JSONValueSerializationTests {
    @Test("Scalars print in their one form")
    func scalars() {
        #expect(JSONValue.null.serialized == "null")
        #expect(JSONValue.bool(true).serialized == "true")
        #expect(JSONValue.bool(false).serialized == "false")
        #expect(JSONValue.int(-42).serialized == "-42")
        #expect(JSONValue.int(.max).serialized == "9223372036854775807")
        #expect(JSONValue.double(1_795_451_322_000).serialized == "1795451322000")
        #expect(JSONValue.double(1_795_451_322_649.4075).serialized == "1795451322649.4075")
        #expect(JSONValue.double(-0.5).serialized == "-0.5")
        #expect(JSONValue.double(.infinity).serialized == "null")
        #expect(JSONValue.double(.nan).serialized == "null")
    }

    @Test("Strings escape the quote, the backslash and control characters; other text is copied as UTF-8")
    func strings() {
        #expect(JSONValue.string("a\"b\\c").serialized == #""a\"b\\c""#)
        #expect(JSONValue.string("\n\r\t").serialized == #""\n\r\t""#)
        #expect(JSONValue.string("\u{0}\u{1}\u{b}\u{1f}").serialized == #""\u0000\u0001\u000b\u001f""#)
        #expect(JSONValue.string("/ é 🔒 \u{7f}").serialized == "\"/ é 🔒 \u{7f}\"")
    }

    @Test("Objects list their keys in code-point order, at every depth; arrays keep theirs")
    func containers() {
        let value = JSONValue.object([
            "b": .array([.int(2), .int(1), .object(["z": .null, "a": .bool(true)])]),
            "a": .string("x"),
            "é": .int(1),
            "Z": .int(0),
            "🔒": .int(3),
            "\u{ff}": .int(2),
        ])
        #expect(value.serialized == #"{"Z":0,"a":"x","b":[2,1,{"a":true,"z":null}],"é":1,"ÿ":2,"🔒":3}"#)
        #expect(JSONValue.object([:]).serialized == "{}")
        #expect(JSONValue.array([]).serialized == "[]")
    }

    @Test("Random strings and keys read back through JSONSerialization as they were")
    func roundTripsThroughFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1f}", "\u{7f}", "é", "€", "🔒", " ", "/"]
        for _ in 0..<200 {
            var object: [String: JSONValue] = [:]
            var expected: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                func text() -> String {
                    var scalars = String.UnicodeScalarView()
                    for _ in 0..<Int.random(in: 0...8, using: &generator) { scalars.append(alphabet.randomElement(using: &generator)!) }
                    return String(scalars)
                }
                let (key, value) = (text(), text())
                object[key] = .string(value)
                expected[key] = value
            }
            let text = JSONValue.object(object).serialized
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String], "\(text)")
            #expect(parsed == expected, "\(text)")
            let keys = expected.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            let members = keys.map { JSONValue.string($0).serialized + ":" + JSONValue.string(expected[$0]!).serialized }
            #expect(text == "{" + members.joined(separator: ",") + "}")
        }
    }
}
