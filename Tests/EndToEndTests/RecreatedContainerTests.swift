import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A container removed and recreated under a running follower: the daemon starts a new history,
/// whose generations count from 1 again, and the follower takes it (a purchase made after the
/// recreation shows at once), while a replayed file of the history it holds is still refused.
@Suite("Recreated container", .timeLimit(.minutes(3)))
struct RecreatedContainerTests {
    @Test("A follower takes the new history of a recreated container: a purchase made after it unlocks the widget")
    func followerTakesNewHistory() async throws {
        try await Fixture.with { fixture in
            // A few generations in the first history: each start publishes one, in the same
            // history (kept in state.json, else taken from the published snapshot).
            var histories: Set<String?> = []
            for start in 0..<3 {
                if start == 2 { try FileManager.default.removeItem(atPath: fixture.layout.statePath) }
                let before = fixture.snapshot()?.generation ?? 0
                let daemon = try BuiltTools.start("entitlementd", fixture.common)
                defer { daemon.send(SIGKILL) }
                #expect(await ChildProcess.wait(timeout: .seconds(20)) { (fixture.snapshot()?.generation ?? 0) > before || !daemon.isRunning },
                        "\(daemon.standardError)")
                #expect(await daemon.stop() == 0, "\(daemon.standardError)")
                histories.insert(fixture.snapshot()?.historyID)
            }
            #expect(histories.count == 1, "a restart keeps the history: \(histories)")
            let old = try #require(fixture.snapshot())
            #expect(old.generation >= 3)
            #expect(old.historyID != nil, "the daemon names its history")

            let (follower, lines) = try FollowerFrameTests.startFollower(fixture)
            defer { follower.send(SIGKILL) }
            let marker = "\"generation\":\(old.generation)"
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.all.contains { $0.line.contains(marker) } },
                    "no first frame: \(follower.standardError)")

            // The container goes, the daemon's state with it, and a daemon starts afresh.
            try FileManager.default.removeItem(atPath: fixture.container)
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let fresh = try #require(fixture.snapshot())
            #expect(fresh.generation < old.generation, "the recreated container counts from 1 again")
            #expect(fresh.historyID != nil && fresh.historyID != old.historyID, "a new history: \(String(describing: fresh.historyID))")

            let bought = try await FollowerFrameTests.ingest(fixture, Fixture.transaction(
                id: "9501", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil))
            #expect(bought < old.generation)
            let unlocked = await ChildProcess.wait(timeout: .seconds(20)) {
                lines.all.contains { DaemonEndToEndTests.firstEntry($0.line).map { $0.generation == bought && !$0.locked } ?? false }
            }
            #expect(unlocked, "the follower did not show the purchase: \(lines.all.map(\.line)) \(follower.standardError)")
            #expect(await follower.stop() == 0)
            #expect(await daemon.stop() == 0, "\(daemon.standardError)")
        }
    }
}
