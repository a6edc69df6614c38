import EntitlementDefaults
import Entitlements
import Foundation
import TestSupport
import Testing

/// The crash-torture harness (`Stress/TortureHarness.swift`) in its short form. Set TORTURE_KILLS
/// (and TORTURE_SEED to replay a run) for the long form, e.g. 10,000 kills of the release build:
/// `TORTURE_KILLS=10000 swift test -c release --filter TortureTests`.
@Suite("Crash torture", .timeLimit(.minutes(5)))
struct TortureTests {
    static func harness(_ writer: TortureHarness.Writer, kills: Int, readers: Int) throws -> TortureHarness {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["TORTURE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
        return TortureHarness(
            options: .init(kills: kills, readers: readers, writer: writer, seed: seed), catalogPath: BuiltTools.defaultCatalog,
            catalog: try Catalog.load(path: BuiltTools.defaultCatalog), group: "group.com.irenews.geko")
    }

    @Test("kill -9 of the daemon at random instants: no torn read, no acknowledged event lost")
    func brokerSurvivesKills() async throws {
        let kills = ProcessInfo.processInfo.environment["TORTURE_KILLS"].flatMap(Int.init) ?? 200
        let report = try await Self.harness(.broker, kills: kills, readers: 4).run()
        #expect(report.passed, "\(report.text)")
        #expect(report.kills == kills)
        #expect(report.torn == 0)
        #expect(report.lost == 0)
        #expect(report.acknowledged > 0)
        #expect(report.decoded > 0)
    }

    @Test("The harness catches a writer that rewrites the file in place, as Foundation's UserDefaults does")
    func harnessCanFail() async throws {
        let report = try await Self.harness(.inPlace, kills: 20, readers: 2).run()
        #expect(!report.passed, "\(report.text)")
        #expect(report.torn > 0, "\(report.text)")
    }
}
