import Foundation
import TestSupport
import Testing

/// Every tool's and every subcommand's `--help`, as the built tools print it, against the files
/// in `Golden/help/`. `UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests` rewrites them from
/// the current output and fails, so a rewrite never passes as a check: read the diff before
/// committing, a golden file records what is right.
@Suite("Help golden files", .timeLimit(.minutes(1)))
struct HelpGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/help")

    static let commands: [[String]] = [
        ["entitlementd"], ["entitlementctl"], ["widget-renderer"], ["entitlement-demo"],
        ["entitlementctl", "ingest"], ["entitlementctl", "status"], ["entitlementctl", "evaluate"],
        ["entitlementctl", "check"], ["entitlementctl", "features"], ["entitlementctl", "products"], ["entitlementctl", "paywall"],
        ["entitlementctl", "preference"], ["entitlementctl", "journal-repair"], ["entitlementctl", "pair"], ["entitlementctl", "companion"],
    ]

    @Test("--help matches its golden file", arguments: commands)
    func help(command: [String]) async throws {
        let result = try await BuiltTools.run(command[0], Array(command.dropFirst()) + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let url = Self.directory.appendingPathComponent(command.joined(separator: "-") + ".txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try result.standardOutput.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("rewrote Golden/help/\(url.lastPathComponent) (UPDATE_GOLDEN=1): read the diff, then run again without it")
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(result.standardOutput == expected, "differs from Golden/help/\(url.lastPathComponent):\n\(result.standardOutput)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "a line is wider than 80 columns")
    }

    @Test("Help wraps at the terminal width COLUMNS gives", arguments: ["60", "120"])
    func columns(columns: String) async throws {
        let width = Int(columns)!
        let result = try await BuiltTools.run("entitlementctl", ["check", "--help"], environment: ["COLUMNS": columns])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        // Only a word too long for the description column may stand out, alone on its line.
        let overlong = lines.filter { $0.count > width && $0.split(separator: " ").count > 1 }
        #expect(overlong.isEmpty, "\(result.standardOutput)")
        #expect(lines.contains { $0.count > width - 10 }, "\(result.standardOutput)")
    }
}
