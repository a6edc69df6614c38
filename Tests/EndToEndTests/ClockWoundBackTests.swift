import Entitlements
import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A clock set back while the daemon is dead: on the boot the snapshot was issued in, readers
/// evaluate at no earlier than its issue time plus the boot time elapsed since (the boot clock
/// cannot be wound back), so access that has ended stays ended. `--now` obeys the same floor,
/// which is how these tests wind "the clock" back without touching the machine's.
@Suite("Clock wound back", .timeLimit(.minutes(2)))
struct ClockWoundBackTests {
    /// Time namespaces (Linux 5.6+) let an unprivileged user start a process whose boot clock
    /// is shifted; where `unshare --time` is not available that test cannot run.
    static let timeNamespacesWork: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--user", "--map-root-user", "--time", "--boottime", "-1", "--fork", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// A monthly subscription ending a few seconds from now is published, the daemon is killed
    /// before the end, and the wall clock passes the end. Returns the end.
    static func subscriptionEndedWithDaemonDead(_ fixture: Fixture) async throws -> Date {
        let daemon = try await fixture.startDaemon()
        defer { daemon.send(SIGKILL) }
        let purchased = Date()
        // Room for the daemon to apply the event before the end on a loaded machine (it took
        // more than 6 s in a full-suite run at load 30-80).
        let expiry = purchased.addingTimeInterval(20)
        let event = Fixture.transaction(id: "7001", purchased: purchased, expires: expiry)
        let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: event + "\n")
        #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
        try #require(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot()?.status(of: "plus").active == true },
                     "the daemon did not publish the purchase before it ended: \(daemon.standardError)")
        let snapshot = try #require(fixture.snapshot())
        #expect(snapshot.issuedIn != nil, "the daemon records the boot it issued the snapshot in")
        #expect(snapshot.issuedAt < expiry)
        // Killed before the end: nothing will publish the expiry.
        daemon.send(SIGKILL)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) != nil)
        #expect(await ChildProcess.wait(timeout: .seconds(30)) { Date() > expiry.addingTimeInterval(0.5) })
        return expiry
    }

    /// Runs `tool` with `arguments`, inside `prefix` (e.g. unshare) when given; returns its exit
    /// status and standard output.
    static func run(_ tool: String, _ arguments: [String], prefix: [String]) async throws -> (status: Int32?, output: String, error: String) {
        let command = prefix + [BuiltTools.path(tool)] + arguments
        let child = try ChildProcess(executable: command[0], arguments: Array(command.dropFirst()), environment: BuiltTools.environment())
        let status = await child.waitForExit(timeout: .seconds(30))
        if status == nil { await child.stop() }
        return (status, child.standardOutput, child.standardError)
    }

    /// `widget-renderer` and `entitlementctl check` with `--now` an hour before `expiry`: both locked.
    static func expectLockedAnHourBack(_ fixture: Fixture, expiry: Date, prefix: [String] = []) async throws {
        let hourBack = ISO8601DateFormatter().string(from: expiry.addingTimeInterval(-3600))
        let rendered = try await run(
            "widget-renderer", ["--format", "json", "--family", "accessoryInline", "--now", hourBack] + fixture.common, prefix: prefix)
        #expect(rendered.status == 0, "\(rendered.error)")
        #expect(DaemonEndToEndTests.firstEntry(rendered.output)?.locked == true, "\(rendered.output)")
        let check = try await run("entitlementctl", ["check", "widgets", "--now", hourBack] + fixture.common, prefix: prefix)
        #expect(check.status == 1, "check with the clock an hour back: \(check.output) \(check.error)")
    }

    @Test("Daemon killed before a subscription ends; after the end, a reader an hour behind still says locked")
    func clockWoundBackWithDaemonDead() async throws {
        try await Fixture.with { fixture in
            let expiry = try await Self.subscriptionEndedWithDaemonDead(fixture)
            try await Self.expectLockedAnHourBack(fixture, expiry: expiry)
        }
    }

    @Test("A reader in a time namespace that shifts its boot clock back still says locked",
          .enabled(if: timeNamespacesWork, "needs unprivileged user and time namespaces (unshare --user --time)"))
    func bootClockShiftedByTimeNamespace() async throws {
        try await Fixture.with { fixture in
            let expiry = try await Self.subscriptionEndedWithDaemonDead(fixture)
            // Further back than the snapshot is old, so the shifted boot clock reads earlier than at issue.
            let uptime = Int(Double((try String(contentsOfFile: "/proc/uptime", encoding: .utf8)).split(separator: " ")[0]) ?? 0)
            let shift = min(uptime - 1, 600)
            try #require(shift > 60, "the machine has been up for only \(uptime) s")
            let prefix = ["/usr/bin/unshare", "--user", "--map-root-user", "--time", "--boottime", "-\(shift)", "--fork"]
            try await Self.expectLockedAnHourBack(fixture, expiry: expiry, prefix: prefix)
        }
    }
}
