import Foundation
import TestSupport
import Testing
@testable import EntitlementModel

/// ``JSONInput/parse(_:)`` (in place, fast string and object paths) against ``ReferenceJSON``
/// (the parser before those paths): the same value, or the same error at the same byte offset,
/// for every corpus file and line, hand-made edge cases, every truncation of sample lines and
/// seeded random byte edits of them.
@Suite(.timeLimit(.minutes(1))) struct JSONParserDifferentialTests {
    static let corpusRoot = Fixtures.packageRoot + "/Tests/Corpus"

    /// Every corpus event line and file, corpus catalog and the default catalog.
    static func corpusInputs() throws -> [[UInt8]] {
        var inputs: [[UInt8]] = []
        for folder in ["events", "catalogs"] {
            let directory = corpusRoot + "/" + folder
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where !name.hasPrefix(".") {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
                let bytes = [UInt8](data)
                inputs.append(bytes)
                inputs += bytes.split(separator: 0x0A).map(Array.init)
            }
        }
        inputs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.catalogPath))))
        return inputs
    }

    static let samples: [String] = [
        Fixtures.xcodeSample,
        #"{"a":[1,-2.5e3,true,false,null],"b":"x\"\\\/\n\u00e9\ud83d\ude00","c":1697679936049.7297}"#,
        #"{"k":"caf\u00e9","l":"café","m":"\t","n":"","o":{},"p":[],"q":[{}],"r":-0,"s":0.5E+7}"#,
        #"{"a":1,"b":2,"a":3}"#,
        #"{"a":1,"a":}"#,
        #"{"a":1,"a":1,"b":"#,
        #"{"é":1,"é":2}"#,
        #"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"3":0}"#,
        #"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"18":0}"#,
        #"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"16":0}"#,
        // Nested containers: a key repeated only across levels is not a duplicate, one repeated
        // within a level is, before and after a large inner object.
        #"{"a":{"a":1,"b":{"a":[{"a":1},{"a":2}]}},"b":[1,[2,{"b":3}]],"c":{}}"#,
        #"{"x":1,"o":{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"x":0},"x":2}"#,
        #"{"o":{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17},"1":0,"p":[{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17},{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"17":1}]}"#,
        #"{"o":{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17},"1":0,"p":[[{}],[{"1":[]}]],"q":[{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17}]}"#,
        "{\"bad\":\"\u{7F}\u{80}\"}",
        "\"a\u{01}b\"",
        #""\ud800\udc00 \u0041 \/""#,
    ]

    static func expectSame(_ bytes: [UInt8], _ comment: @autoclosure () -> String = "") {
        let expected = Result { () throws(JSONSyntaxError) in try ReferenceJSON.parse(bytes) }
        let fromArray = Result { () throws(JSONSyntaxError) in try JSONInput.parse(bytes) }
        let fromData = Result { () throws(JSONSyntaxError) in try JSONInput.parse(Data(bytes)) }
        let fromCopy = Result { () throws(JSONSyntaxError) in try JSONInput.parse(bytes.lazy.map { $0 }) }
        #expect(fromArray == expected, "\(comment()) \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        #expect(fromData == expected)
        #expect(fromCopy == expected)
    }

    @Test func corpusParsesIdentically() throws {
        let inputs = try Self.corpusInputs()
        #expect(inputs.count > 60)
        for input in inputs { Self.expectSame(input) }
    }

    @Test func samplesParseIdentically() {
        for sample in Self.samples { Self.expectSame(Array(sample.utf8)) }
    }

    @Test func invalidUTF8InsideStringsFailsIdentically() {
        for bad: [UInt8] in [[0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF], [0xE2, 0x82]] {
            Self.expectSame(Array(#"{"key":""#.utf8) + bad + Array(#""}"#.utf8))
            Self.expectSame(Array(#"{""#.utf8) + bad + Array(#"":1}"#.utf8))
        }
    }

    @Test func everyTruncationFailsIdentically() {
        for sample in Self.samples.prefix(3) {
            let bytes = Array(sample.utf8)
            for length in 0..<bytes.count { Self.expectSame(Array(bytes[..<length]), "truncated at \(length)") }
        }
    }

    @Test func randomEditsParseIdentically() {
        var random = SplitMix(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { random.next() }
        let alphabet = Array(#"{}[]:,"\\/u0123456789abcdefnrtE.-+ "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        for sample in Self.samples {
            let original = Array(sample.utf8)
            for _ in 0..<300 {
                var bytes = original
                for _ in 0..<(1 + Int(next() % 3)) {
                    let position = Int(next() % UInt64(bytes.count))
                    bytes[position] = alphabet[Int(next() % UInt64(alphabet.count))]
                }
                Self.expectSame(bytes)
            }
        }
    }
}
