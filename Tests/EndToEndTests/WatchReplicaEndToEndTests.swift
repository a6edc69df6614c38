import Broker
import EntitlementModel
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// `entitlementd --watch-container`, `entitlementctl watch-link` and the watch follower, as real processes.
@Suite("Watch replica end to end", .timeLimit(.minutes(2)))
struct WatchReplicaEndToEndTests {
    /// The `launch.locked` and generation of a `widget-renderer --device watch --format json` launch line.
    static func launch(_ line: String) -> (generation: Int64?, locked: Bool)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["device"] as? String == "watch", let launch = object["launch"] as? [String: Any],
              let locked = launch["locked"] as? Bool
        else { return nil }
        return ((object["generation"] as? Int).map(Int64.init), locked)
    }

    @Test("A purchase reaches the watch container and the watch follower unlocks within a deadline")
    func deliveryUnlocksTheWatch() async throws {
        try await Fixture.with { fixture in
            let watchContainer = fixture.root + "/watch"
            let daemon = try await fixture.startDaemon(["--watch-container", watchContainer])
            let lines = TimestampedLines()
            let follower = try ChildProcess(
                executable: BuiltTools.path("widget-renderer"),
                arguments: ["--follow", "--device", "watch", "--format", "json", "--container", watchContainer,
                            "--group", fixture.group, "--catalog", BuiltTools.defaultCatalog],
                environment: BuiltTools.environment()
            ) { stream, line in if stream == .standardOutput { lines.append(line) } }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.first { Self.launch($1)?.locked == true } != nil })

            let purchase = Fixture.transaction(id: "5001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let started = Date()
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
            let unlocked = await ChildProcess.wait(timeout: .seconds(5)) { lines.first { Self.launch($1)?.locked == false } != nil }
            #expect(unlocked, "watch follower output: \(follower.standardOutput)")
            if let at = lines.first(where: { Self.launch($1)?.locked == false })?.date {
                print("ingest → watch unlocked: \(Int(at.timeIntervalSince(started) * 1000)) ms")
            }
            let reader = SnapshotReader(suiteName: fixture.group, container: watchContainer)
            #expect(reader.refresh().snapshot?.generation == fixture.snapshot()?.generation)
            #expect(await follower.stop() == 0)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("While the link is down nothing is delivered; on reconnect only the latest snapshot arrives")
    func linkDownThenUp() async throws {
        try await Fixture.with { fixture in
            let watchContainer = fixture.root + "/watch"
            let daemon = try await fixture.startDaemon(["--watch-container", watchContainer])
            let watchReader = SnapshotReader(suiteName: fixture.group, container: watchContainer)
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { watchReader.refresh().snapshot?.generation == fixture.snapshot()?.generation })
            let before = try #require(watchReader.lastGood?.generation)

            let down = try await fixture.run("entitlementctl", ["watch-link", "down"] + fixture.common)
            #expect(down.status == 0)
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("watch: link down") || FileManager.default.fileExists(atPath: fixture.layout.watchLinkPath) })

            let bought = Date()
            let purchase = Fixture.transaction(id: "6001", product: "com.irenews.geko.plus.lifetime", purchased: bought, expires: nil)
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
            let intermediate = try #require(fixture.snapshot()?.generation)
            let refund = Fixture.transaction(
                id: "6001", product: "com.irenews.geko.plus.lifetime", purchased: bought, expires: nil,
                signed: Date().addingTimeInterval(0.01), revoked: Date())
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: refund).status == 0)
            let latest = try #require(fixture.snapshot()?.generation)
            #expect(latest > intermediate && intermediate > before)
            // The daemon has decided not to deliver the latest generation: the watch still has the old one.
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("link down, holding generation \(latest)") })
            #expect(watchReader.refresh().snapshot?.generation == before)

            #expect(try await fixture.run("entitlementctl", ["watch-link", "up"] + fixture.common).status == 0)
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { watchReader.refresh().snapshot?.generation == latest })
            #expect(watchReader.lastGood?.status(of: "plus").state == .revoked)
            #expect(!daemon.standardError.contains("delivered generation \(intermediate) "))
            #expect(daemon.standardError.contains("delivered generation \(latest) "))
            #expect(await daemon.stop() == 0)
        }
    }
}
