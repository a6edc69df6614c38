import Entitlements
import Foundation
import ServiceRuntime
import SharedDefaults
import TestSupport
import Testing

/// The real `entitlementd`, `entitlementctl` and `widget-renderer`, as child processes in temporary containers.
@Suite("Daemon end to end", .timeLimit(.minutes(4)))
struct DaemonEndToEndTests {
    /// The generation and the first entry's `locked` of one `widget-renderer --format json` line.
    static func firstEntry(_ line: String) -> (generation: Int64, locked: Bool)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let generation = object["generation"] as? Int,
              let entries = object["entries"] as? [[String: Any]], let locked = entries.first?["locked"] as? Bool
        else { return nil }
        return (Int64(generation), locked)
    }

    @Test("A follower shows unlocked, then locked at expiry with no further event")
    func followerLocksAtExpiry() async throws {
        try await withRoomForSetUp([6, 20, 60]) { window in try await Fixture.with { try await Self.followerLocksAtExpiry($0, window: window) } }
    }

    /// One attempt with `window` seconds to the expiry; false when the set-up outlasted it.
    static func followerLocksAtExpiry(_ fixture: Fixture, window: TimeInterval) async throws -> Bool {
        let daemon = try await fixture.startDaemon()
        defer { daemon.send(SIGKILL) }
        let (follower, lines) = try FollowerFrameTests.startFollower(fixture)
        defer { follower.send(SIGKILL) }
        // The follower starts locked (nothing bought).
        #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.first { Self.firstEntry($1)?.locked == true } != nil })

        let now = Date()
        let expiry = now.addingTimeInterval(window)
        let event = Fixture.transaction(id: "1001", purchased: now, expires: expiry)
        let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: event + "\n")
        #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
        let published = fixture.snapshot()?.generation ?? 0
        #expect(published >= 2)

        let unlocked = await ChildProcess.wait(timeout: .seconds(Int(window))) {
            lines.first { Self.firstEntry($1).map { $0.generation >= published && !$0.locked } ?? false } != nil
        }
        let roomy = unlocked && Date() < expiry.addingTimeInterval(-1)
        if roomy {
            let relocked = await ChildProcess.wait(timeout: .seconds(10)) {
                lines.first { $0 >= expiry.addingTimeInterval(-0.05) && Self.firstEntry($1)?.locked == true } != nil
            }
            #expect(relocked, "follower never relocked: \(follower.standardOutput)")
            if let lockedAt = lines.first(where: { $0 >= expiry.addingTimeInterval(-0.05) && Self.firstEntry($1)?.locked == true })?.date {
                // At the second: not before the expiry (allowing for timer granularity), within one second after.
                #expect(lockedAt.timeIntervalSince(expiry) < 1.0)
                #expect(lockedAt.timeIntervalSince(expiry) > -0.05)
            }
            // The daemon republished at the transition too, with no event.
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { (fixture.snapshot()?.generation ?? 0) > published })
            #expect(await follower.stop() == 0)
            #expect(await daemon.stop() == 0)
            #expect(daemon.standardError.contains("SIGTERM: stopping"))
        }
        return roomy
    }

    @Test("A second daemon on the same container exits 75 with one line")
    func secondInstanceRefused() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let second = try await fixture.run("entitlementd", fixture.common)
            #expect(second.status == 75)
            let errorLines = second.standardError.split(separator: "\n")
            #expect(errorLines.count == 1, "stderr: \(second.standardError)")
            #expect(second.standardError.contains("another entitlementd (pid \(daemon.processIdentifier)) holds"))
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("Events queued while no daemon runs are applied when it starts")
    func queuedBeforeStart() async throws {
        try await Fixture.with { fixture in
            let lifetime = Fixture.transaction(id: "2001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: lifetime)
            #expect(ingest.status == 0, "\(ingest.standardError)")
            let statusBefore = try await fixture.run("entitlementctl", ["status"] + fixture.common)
            #expect(statusBefore.status == 69)

            let waitWithoutDaemon = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: lifetime)
            #expect(waitWithoutDaemon.status == 69, "\(waitWithoutDaemon.standardError)")

            let daemon = try await fixture.startDaemon()
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { fixture.snapshot()?.status(of: "plus").state == .purchased })
            let status = try await fixture.run("entitlementctl", ["status", "--format", "json"] + fixture.common)
            #expect(status.status == 0)
            #expect(status.standardOutput.contains("\"plus\":{\"active\":true,\"expiresAt\":null"))
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 0, "\(check.standardOutput)")
            #expect(await daemon.stop() == 0)

            // Restart: the journal replays, the generation keeps increasing.
            let before = fixture.snapshot()?.generation ?? 0
            let again = try await fixture.startDaemon()
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { (fixture.snapshot()?.generation ?? 0) > before })
            #expect(fixture.snapshot()?.status(of: "plus").state == .purchased)
            #expect(await again.stop() == 0)
        }
    }

    @Test("A daemon restarted over the file it published, stopped as soon as it is started, stops cleanly", arguments: 1...3)
    func stopRightAfterRestart(round: Int) async throws {
        try await Fixture.with { fixture in
            let first = try await fixture.startDaemon()
            #expect(await first.stop() == 0)
            let again = try await fixture.startDaemon()
            let status = await again.stop()
            #expect(status == 0, "round \(round): \(again.standardError)")
            #expect(again.standardError.contains("SIGTERM: stopping"))
        }
    }

    @Test("SIGHUP reloads the catalog and the daemon keeps serving")
    func hangupReloads() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            daemon.send(SIGHUP)
            #expect(await ChildProcess.wait(timeout: .seconds(5)) { daemon.standardError.contains("catalog reloaded") })
            #expect(daemon.isRunning)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("A refund locks again and a duplicate event changes nothing")
    func refundAndDuplicate() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let bought = Date()
            let purchase = Fixture.transaction(id: "3001", product: "com.irenews.geko.plus.lifetime", purchased: bought, expires: nil)
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
            let afterPurchase = fixture.snapshot()
            #expect(afterPurchase?.status(of: "plus").active == true)
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: purchase).status == 0)
            #expect(fixture.snapshot()?.generation == afterPurchase?.generation)
            let refund = Fixture.transaction(
                id: "3001", product: "com.irenews.geko.plus.lifetime", purchased: bought, expires: nil,
                signed: Date().addingTimeInterval(0.01), revoked: Date())
            #expect(try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: refund).status == 0)
            #expect(fixture.snapshot()?.status(of: "plus").state == .revoked)
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 1)
            #expect(check.standardOutput.hasPrefix("locked: widgets: revoked"))
            #expect(await daemon.stop() == 0)
        }
    }
}
