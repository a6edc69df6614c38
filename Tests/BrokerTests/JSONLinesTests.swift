@testable import Broker
import Foundation
import Testing

/// One line splitter for every JSON Lines input: LF or CRLF, a leading byte-order mark, line
/// numbers that match the file.
@Suite("JSON Lines", .timeLimit(.minutes(1)))
struct JSONLinesTests {
    @Test("LF, CRLF and a missing last terminator end lines; a leading BOM is dropped", arguments: [
        ("{\"a\":1}\n{\"b\":2}\n", ["{\"a\":1}", "{\"b\":2}"]),
        ("{\"a\":1}\r\n{\"b\":2}\r\n", ["{\"a\":1}", "{\"b\":2}"]),
        ("\u{FEFF}{\"a\":1}\r\n\r\n{\"b\":2}", ["{\"a\":1}", "", "{\"b\":2}"]),
        ("\u{FEFF}", []),
        ("a\r\rb\n", ["a\r\rb"]),  // only CR directly before LF is part of the terminator
        ("\u{FEFF}\u{FEFF}x\n", ["\u{FEFF}x"]),  // only the first mark is a byte-order mark
    ])
    func splits(input: String, expected: [String]) throws {
        #expect(try JSONLines.split(Array(input.utf8)) == expected)
    }

    @Test("Invalid UTF-8 names its line, counted as the file counts it")
    func invalidUTF8() {
        let bytes = Array("\u{FEFF}{}\r\n\r\n".utf8) + [0xC0, 0xAF] + Array("\r\n".utf8)
        #expect(throws: JSONLines.InvalidUTF8(line: 3)) { try JSONLines.split(bytes) }
    }

    @Test("The daemon's inbox reads a file with CRLF line ends and a byte-order mark")
    func inboxReadsCRLFAndBOM() throws {
        let dir = NSTemporaryDirectory() + "jsonlines-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inbox = Inbox(directory: dir + "/inbox")
        try inbox.prepare()
        let name = "00000000000000000001-1-1.events"
        try Data("\u{FEFF}{\"a\":1}\r\n{\"b\":2}\r\n".utf8).write(to: URL(fileURLWithPath: dir + "/inbox/" + name))
        #expect(try inbox.read(name) == ["{\"a\":1}", "{\"b\":2}"])
    }
}
