import Foundation
import Testing
import TestSupport
@testable import PropertyList

@Suite struct PropertyListCodecTests {
    /// Whole seconds: XML keeps no fraction (the binary-only test below checks fractions).
    static let date = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static let scalars: [(String, PropertyListValue)] = [
        ("string", .string("héllo ✓")),
        ("empty string", .string("")),
        ("integer", .integer(42)),
        ("zero", .integer(0)),
        ("one", .integer(1)),
        ("negative", .integer(-7)),
        ("int64 max", .integer(.max)),
        ("int64 min", .integer(.min)),
        ("real", .real(3.25)),
        ("whole real", .real(2.0)),
        ("real one", .real(1.0)),
        ("true", .boolean(true)),
        ("false", .boolean(false)),
        ("date", .date(date)),
        ("data", .data([0, 1, 2, 255])),
        ("empty data", .data([])),
        ("empty array", .array([])),
        ("empty dictionary", .dictionary([:])),
    ]

    static let nested: PropertyListValue = .dictionary([
        "flags": .array([.boolean(true), .boolean(false), .integer(1), .integer(0), .real(1.0)]),
        "inner": .dictionary(["when": .date(date), "blob": .data([9, 8]), "deeper": .dictionary(["n": .integer(-1)])]),
        "list": .array([.array([.string("a")]), .dictionary([:])]),
    ])

    @Test(arguments: scalars.map(\.0), [PropertyListCodec.Format.binary, .xml])
    func roundTripsEveryCase(name: String, format: PropertyListCodec.Format) throws {
        let value = try #require(Self.scalars.first { $0.0 == name }?.1)
        let wrapped = PropertyListValue.dictionary(["v": value])
        let decoded = try PropertyListCodec.decode(PropertyListCodec.encode(wrapped, format: format))
        #expect(decoded == wrapped, "\(name) came back as \(decoded)")
    }

    @Test(arguments: [PropertyListCodec.Format.binary, .xml])
    func roundTripsNestedValues(format: PropertyListCodec.Format) throws {
        let bytes = try PropertyListCodec.encode(Self.nested, format: format)
        #expect(try PropertyListCodec.decode(bytes) == Self.nested)
    }

    @Test func binaryIsTheDefaultAndXMLIsXML() throws {
        let binary = try PropertyListCodec.encode(.dictionary(["a": .integer(1)]))
        #expect(binary.starts(with: Array("bplist00".utf8)))
        let xml = try PropertyListCodec.encode(.dictionary(["a": .integer(1)]), format: .xml)
        #expect(String(decoding: xml, as: UTF8.self).contains("<plist"))
    }

    @Test func booleansAndNumbersKeepTheirKindFromXML() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>t</key><true/><key>f</key><false/><key>i</key><integer>1</integer>
            <key>z</key><integer>0</integer><key>r</key><real>1</real>
            </dict></plist>
            """
        let value = try PropertyListCodec.decode(Array(xml.utf8))
        #expect(value == .dictionary(["t": .boolean(true), "f": .boolean(false), "i": .integer(1), "z": .integer(0), "r": .real(1)]))
    }

    @Test func binaryDatesKeepSubMillisecondPrecision() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
        let decoded = try PropertyListCodec.decode(PropertyListCodec.encode(.array([.date(date)])))
        #expect(decoded.arrayValue?.first?.dateValue == date)
    }

    static let badInputs: [(String, [UInt8])] = [
        ("empty", []),
        ("garbage", Array("this is not a plist at all".utf8)),
        ("random bytes", [0xff, 0x00, 0x13, 0x37, 0x42, 0x99]),
        ("bplist header only", Array("bplist00".utf8)),
        ("unterminated xml", Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>a</key>".utf8)),
    ]

    @Test(arguments: badInputs.map(\.0))
    func garbageIsAnErrorNotACrash(name: String) throws {
        let bytes = try #require(Self.badInputs.first { $0.0 == name }?.1)
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode(bytes) }
    }

    @Test func everyTruncationOfABinaryListIsRefused() throws {
        let bytes = try PropertyListCodec.encode(Self.nested)
        var accepted: [Int] = []
        for length in 0..<bytes.count {
            if (try? PropertyListCodec.decode(Array(bytes[..<length]))) != nil { accepted.append(length) }
        }
        #expect(accepted.isEmpty, "truncations accepted at lengths \(accepted)")
    }

    @Test func errorsDescribeThemselvesOnOneLine() {
        do {
            _ = try PropertyListCodec.decode(Array("<plist>\n<dict>\n<key>".utf8))
            Issue.record("decoding malformed XML succeeded")
        } catch {
            #expect(!error.description.contains("\n"), "got: \(error.description)")
            #expect(error.description.hasPrefix("not a valid property list"))
        }
    }

    @Test(arguments: [PropertyListCodec.Format.binary, .xml])
    func pythonPlistlibReadsWhatWeWrite(format: PropertyListCodec.Format) async throws {
        let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let python else {
            print("skipped: pythonPlistlibReadsWhatWeWrite(format: \(format)): no python3 to compare against")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("v.plist")
        let value: PropertyListValue = .dictionary([
            "s": .string("x"), "i": .integer(-5), "r": .real(2.0), "t": .boolean(true), "f": .boolean(false),
            "d": .date(Date(timeIntervalSince1970: 0)), "b": .data([1, 2]), "a": .array([.integer(1)]),
        ])
        try Data(PropertyListCodec.encode(value, format: format)).write(to: file)

        let run = try await BuiltTools.run(
            executable: python,
            [
                "-c",
                "import plistlib,sys; d=plistlib.load(open(sys.argv[1],'rb')); print(sorted((k, type(v).__name__, repr(v)) for k, v in d.items()))",
                file.path,
            ])
        #expect(run.status == 0, "python3: \(run.standardError)")
        let text = run.standardOutput
        #expect(text.contains("('t', 'bool', 'True')"), "got: \(text)")
        #expect(text.contains("('f', 'bool', 'False')"), "got: \(text)")
        #expect(text.contains("('i', 'int', '-5')"), "got: \(text)")
        #expect(text.contains("('r', 'float', '2.0')"), "got: \(text)")
        #expect(text.contains("('b', 'bytes', \"b'\\\\x01\\\\x02'\")"), "got: \(text)")
        #expect(text.contains("('d', 'datetime', 'datetime.datetime(1970, 1, 1, 0, 0)')"), "got: \(text)")
    }
}
