import Foundation
import TestSupport
import Testing

/// Invalid UTF-8 in an events file is reported with the line it is on, like every other bad
/// line (the corpus found "FILE: input is not valid UTF-8" with no line number).
@Suite("Invalid UTF-8 names its line", .timeLimit(.minutes(1)))
struct InvalidUTF8LineTests {
    @Test("ingest and evaluate name FILE:LINE", arguments: [1, 3])
    func namesLine(badLine: Int) async throws {
        try await withTemporaryDirectory { root in
            let file = root + "/events.jsonl"
            var lines = [Data("{}".utf8), Data(), Data("{}".utf8)]
            lines[badLine - 1] = Data([0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x7D])  // {"<overlong />"}
            try Data(lines.map { $0 + Data("\n".utf8) }.joined()).write(to: URL(fileURLWithPath: file))
            for command in [["ingest", file], ["evaluate", "--now", "2026-01-01T00:00:00Z", file]] {
                let result = try await BuiltTools.run(
                    "entitlementctl", command + ["--container", root + "/c", "--catalog", BuiltTools.defaultCatalog])
                #expect(result.status == 65)
                #expect(result.standardError == "entitlementctl: \(file):\(badLine): line is not valid UTF-8\n")
            }
        }
    }
}
