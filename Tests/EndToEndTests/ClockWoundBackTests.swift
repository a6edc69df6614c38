import EntitlementModel
import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A clock set back while the daemon is dead: on the boot the snapshot was issued in, readers
/// evaluate at no earlier than its issue time plus the boot time elapsed since (the boot clock
/// cannot be wound back), so access that has ended stays ended. `--now` obeys the same floor,
/// which is how this test winds "the clock" back without touching the machine's.
@Suite("Clock wound back", .timeLimit(.minutes(2)))
struct ClockWoundBackTests {
    @Test("Daemon killed before a subscription ends; after the end, a reader an hour behind still says locked")
    func clockWoundBackWithDaemonDead() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let purchased = Date()
            let expiry = purchased.addingTimeInterval(6)  // room for a slow ingest on a loaded machine
            let event = Fixture.transaction(id: "7001", purchased: purchased, expires: expiry)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: event + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot()?.status(of: "plus").active == true })
            let snapshot = try #require(fixture.snapshot())
            #expect(snapshot.issuedIn != nil, "the daemon records the boot it issued the snapshot in")
            #expect(snapshot.issuedAt < expiry)
            // Killed before the end: nothing will publish the expiry.
            daemon.send(SIGKILL)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) != nil)
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { Date() > expiry.addingTimeInterval(0.5) })

            let hourBack = ISO8601DateFormatter().string(from: expiry.addingTimeInterval(-3600))
            let rendered = try await fixture.run(
                "widget-renderer", ["--format", "json", "--family", "accessoryInline", "--now", hourBack] + fixture.common)
            #expect(rendered.status == 0, "\(rendered.standardError)")
            #expect(DaemonEndToEndTests.firstEntry(rendered.standardOutput)?.locked == true, "\(rendered.standardOutput)")
            let check = try await fixture.run("entitlementctl", ["check", "widgets", "--now", hourBack] + fixture.common)
            #expect(check.status == 1, "check with the clock an hour back: \(check.standardOutput) \(check.standardError)")
        }
    }
}
