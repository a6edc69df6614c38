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

    /// The watch launch line `widget-renderer --device watch` renders from `container` at `now`.
    static func watchLaunch(_ fixture: Fixture, container: String, now: Date) async throws -> (generation: Int64?, locked: Bool)? {
        let rendered = try await fixture.run(
            "widget-renderer",
            ["--device", "watch", "--format", "json", "--container", container, "--group", fixture.group,
             "--catalog", BuiltTools.defaultCatalog, "--now", ISO8601DateFormatter().string(from: now)])
        return rendered.standardOutput.split(separator: "\n").lazy.compactMap { Self.launch(String($0)) }.first
    }

    @Test("With the link up and the daemon alive, a lifetime buyer's watch stays unlocked past its 7-day trust: the daemon refreshes the copy before it ages out",
          .enabled(if: ShiftedClock.isAvailable, "needs a C compiler to build the library that shifts the daemon's wall clock"))
    func watchCopyRefreshedWhileLinkUp() async throws {
        try await Fixture.with { fixture in
            let watchContainer = fixture.root + "/watch"
            // The daemon's wall clock is moved ahead; the readers are given the same instant with --now.
            let clock = try ShiftedClock(directory: fixture.root)
            let daemon = try BuiltTools.start("entitlementd", fixture.common + ["--watch-container", watchContainer], environment: clock.environment)
            defer { daemon.send(SIGKILL) }
            let watchReader = SnapshotReader(suiteName: fixture.group, container: watchContainer)
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { watchReader.refresh().snapshot != nil }, "\(daemon.standardError)")
            let purchase = Fixture.transaction(id: "6101", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { watchReader.refresh().snapshot?.status(of: "plus").state == .purchased })
            var copy = try #require(watchReader.lastGood)
            let bought = copy.issuedAt

            // Eight days, a day at a time: the daemon's clock is set to two seconds before the
            // watch's copy is a day old and the daemon woken once (SIGHUP) to read it; the refresh
            // must then come by itself, from the wake-up the daemon schedules for it.
            for day in 1...8 {
                let due = copy.issuedAt.addingTimeInterval(86_400)
                try clock.set(offset: due.addingTimeInterval(-2).timeIntervalSinceNow)
                daemon.send(SIGHUP)
                let refreshed = await ChildProcess.wait(timeout: .seconds(30)) { (watchReader.refresh().snapshot?.generation ?? 0) > copy.generation }
                #expect(refreshed, "day \(day): the watch's copy of \(copy.issuedAt) was not refreshed: \(daemon.standardError)")
                guard refreshed, let fresh = watchReader.lastGood else { break }
                #expect(fresh.issuedAt >= due.addingTimeInterval(-1), "day \(day): refreshed at \(fresh.issuedAt), due \(due)")
                #expect(fresh.status(of: "plus").state == .purchased)
                copy = fresh
            }
            // More than the watch's 7-day trust after the purchase, its launch is still unlocked.
            let later = copy.issuedAt.addingTimeInterval(60)
            #expect(later.timeIntervalSince(bought) > 7 * 86_400)
            let launch = try await Self.watchLaunch(fixture, container: watchContainer, now: later)
            #expect(launch?.locked == false, "watch launch at \(later): \(String(describing: launch))")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A delivery that failed (the watch container read-only) is retried with back-off once it is writable, with no new change",
          .enabled(if: isRoot, "needs root to mount a tmpfs and remount it read-only"))
    func failedDeliveryRetried() async throws {
        try await Fixture.with { fixture in
            try await withTmpfs(in: fixture.root, kibibytes: 1024) { watchContainer in
                try remountTmpfs(watchContainer, kibibytes: 1024, readOnly: true)
                let daemon = try await fixture.startDaemon(["--watch-container", watchContainer])
                defer { daemon.send(SIGKILL) }
                let purchase = Fixture.transaction(id: "6201", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
                #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
                let latest = try #require(fixture.snapshot()?.generation)
                // The retries of the start-up delivery may have backed off to their longest wait.
                let failed = await ChildProcess.wait(timeout: .seconds(45)) {
                    daemon.standardError.split(separator: "\n").contains { $0.contains("watch: delivery of generation \(latest) ") && $0.contains("EROFS") }
                }
                #expect(failed, "\(daemon.standardError)")

                try remountTmpfs(watchContainer, kibibytes: 1024, readOnly: false)
                let watchReader = SnapshotReader(suiteName: fixture.group, container: watchContainer)
                let delivered = await ChildProcess.wait(timeout: .seconds(60)) { watchReader.refresh().snapshot?.generation == latest }
                #expect(delivered, "\(daemon.standardError)")
                #expect(watchReader.lastGood?.status(of: "plus").state == .purchased)
                #expect(fixture.snapshot()?.generation == latest, "no new change was needed")
                #expect(await daemon.stop() == 0)
            }
        }
    }
}
