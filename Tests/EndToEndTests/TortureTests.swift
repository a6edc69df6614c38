import Foundation
import TestSupport
import Testing

/// The crash-torture harness in its short form. The long form is the README's
/// `entitlement-stress torture --kills 10000`; set TORTURE_KILLS to run more here.
@Suite("Crash torture", .timeLimit(.minutes(5)))
struct TortureTests {
    static func report(_ output: String) -> [String: Any]? {
        output.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test("kill -9 of the daemon at random instants: no torn read, no acknowledged event lost")
    func brokerSurvivesKills() async throws {
        let kills = ProcessInfo.processInfo.environment["TORTURE_KILLS"] ?? "200"
        let (executable, arguments) = BuiltTools.lowPriority(
            [BuiltTools.path("entitlement-stress"), "torture", "--kills", kills, "--catalog", BuiltTools.defaultCatalog])
        let result = try await BuiltTools.run(executable: executable, arguments, timeout: .seconds(280))
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let report = try #require(Self.report(result.standardOutput), "\(result.standardOutput)")
        #expect(report["kills"] as? Int == Int(kills))
        #expect(report["torn"] as? Int == 0)
        #expect(report["lost"] as? Int == 0)
        #expect((report["acknowledged"] as? Int ?? 0) > 0)
        #expect((report["decoded"] as? Int ?? 0) > 0)
    }

    @Test("The harness catches a writer that is not crash-safe (Foundation's UserDefaults)")
    func harnessCanFail() async throws {
        let (executable, arguments) = BuiltTools.lowPriority(
            [BuiltTools.path("entitlement-stress"), "torture", "--writer", "foundation", "--kills", "20", "--readers", "2", "--catalog", BuiltTools.defaultCatalog])
        let result = try await BuiltTools.run(executable: executable, arguments, timeout: .seconds(120))
        #expect(result.status == 1, "\(result.standardOutput)")
        let report = try #require(Self.report(result.standardOutput), "\(result.standardOutput)")
        #expect((report["torn"] as? Int ?? 0) + (report["lost"] as? Int ?? 0) > 0)
    }
}
