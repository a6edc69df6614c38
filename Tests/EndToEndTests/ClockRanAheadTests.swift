import StoreKitFormats
import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A wall clock that ran ahead and was set right (an RTC or NTP fault) never locks a paying
/// subscriber for good: the daemon publishes only instants it can justify (the wall clock as far
/// as the boot clock corroborates it, and trusted `signedDate`s), a newer trusted `signedDate`
/// re-anchors a time that ran ahead, and readers follow the daemon's next snapshot. The clock and
/// the boot id are the tools' own, set through ``ClockShim``.
@Suite("Clock ran ahead", .timeLimit(.minutes(3)), .enabled(if: ClockShim.compiler != nil, "needs a C compiler (cc) to build the clock shim"))
struct ClockRanAheadTests {
    static let year: Int64 = 365 * 86_400
    static let monthly = "com.irenews.geko.plus.monthly"

    /// A fixture, its clock shim and a running daemon with a monthly subscriber (bought a day
    /// ago, renewing in 29 days) published.
    final class Story: @unchecked Sendable {
        let fixture: Fixture
        let shim: ClockShim
        var daemon: ChildProcess
        let boughtAt = Date()

        init(_ fixture: Fixture) async throws {
            self.fixture = fixture
            shim = try await ClockShim.make(in: fixture.root + "/shim")
            daemon = try BuiltTools.start("entitlementd", fixture.common, environment: shim.environment)
            try await awaitPublished(after: 0)
            let bought = ClockRanAheadTests.transaction(
                id: "8001", purchased: boughtAt.addingTimeInterval(-86_400), expires: boughtAt.addingTimeInterval(29 * 86_400))
            try await ingest(bought)
            #expect(try await check() == 0, "the subscriber is unlocked before any fault")
        }

        deinit { daemon.send(SIGKILL) }

        /// Waits until the daemon has logged publishing a generation after `generation`.
        func awaitPublished(after generation: Int64) async throws {
            let daemon = daemon
            let published = await ChildProcess.wait(timeout: .seconds(30)) {
                Self.publishedGenerations(daemon.standardError).contains { $0 > generation } || !daemon.isRunning
            }
            try #require(published && daemon.isRunning, "entitlementd did not publish after generation \(generation): \(daemon.standardError)")
        }

        static func publishedGenerations(_ log: String) -> [Int64] {
            log.split(separator: "\n").compactMap { line in
                guard let range = line.range(of: "published generation ") else { return nil }
                return Int64(line[range.upperBound...].prefix { $0.isNumber })
            }
        }

        /// The last generation this daemon logged publishing.
        var lastGeneration: Int64 { Self.publishedGenerations(daemon.standardError).last ?? 0 }

        /// `ingest --wait` (the ingest client on the real clock: only the daemon's clock matters).
        func ingest(_ line: String) async throws {
            let result = try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: line + "\n")
            try #require(result.status == 0, "ingest --wait: \(result.standardError)\n\(daemon.standardError)")
        }

        /// `entitlementctl check widgets` under the shim's clock and boot id: 0 unlocked, 1 locked.
        func check() async throws -> Int32 {
            try await BuiltTools.run("entitlementctl", ["check", "widgets"] + fixture.common, environment: shim.environment).status
        }

        /// The published snapshot as `status --format json` prints it, or the failure.
        func status() async throws -> BuiltTools.Result {
            try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + fixture.common, environment: shim.environment)
        }

        /// Stops the daemon (SIGTERM) and starts it again under the shim; waits for its first publish.
        func restartDaemon() async throws {
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(20)) == 0, "entitlementd stops on SIGTERM: \(daemon.standardError)")
            daemon = try BuiltTools.start("entitlementd", fixture.common, environment: shim.environment)
            try await awaitPublished(after: 0)
        }

        /// A widget follower under the shim's clock and boot id, printing JSON frames.
        func startFollower() throws -> ChildProcess {
            try BuiltTools.start(
                "widget-renderer", fixture.common + ["--follow", "--format", "json", "--family", "systemSmall"], environment: shim.environment)
        }

        /// Whether `follower`'s latest frame comes to show the daemon's last generation unlocked.
        func followerShowsUnlocked(_ follower: ChildProcess) async -> Bool {
            let generation = lastGeneration
            return await ChildProcess.wait(timeout: .seconds(20)) {
                guard let line = follower.standardOutput.split(separator: "\n").last,
                    let frame = DaemonEndToEndTests.firstEntry(String(line))
                else { return false }
                return frame.generation >= generation && !frame.locked
            }
        }

        /// `issuedAt` of the published snapshot, as a reader accepts it.
        var issuedAt: Date? { fixture.snapshot()?.issuedAt }
    }

    static func transaction(id: String, original: String = "8001", purchased: Date, expires: Date, signed: Date? = nil) -> String {
        StoreTransaction(
            transactionId: id, originalTransactionId: original, bundleId: "com.irenews.geko", productId: monthly, purchaseDate: purchased,
            expiresDate: expires, type: .autoRenewable, signedDate: signed ?? purchased, environment: .xcode
        ).jsonRepresentation.serialized
    }

    static func renewalInfo(autoRenew: Bool, signed: Date) -> String {
        RenewalInfo(
            originalTransactionId: "8001", autoRenewStatus: autoRenew, autoRenewProductId: monthly, productId: monthly, signedDate: signed,
            environment: .xcode
        ).jsonRepresentation.serialized
    }

    /// A renewal signed now: the next month of the subscription.
    static func renewal(id: String) -> String {
        let now = Date()
        return transaction(id: id, purchased: now, expires: now.addingTimeInterval(30 * 86_400), signed: now)
    }

    /// Unlocked now, after a restart and after a reboot (a new boot id for the daemon and readers).
    static func expectUnlockedThroughRestartAndReboot(_ story: Story, _ comment: Comment) async throws {
        #expect(try await story.check() == 0, "\(comment)")
        try await story.restartDaemon()
        #expect(try await story.check() == 0, "\(comment), after a restart: \(story.daemon.standardError)")
        try story.shim.reboot()
        try await story.restartDaemon()
        #expect(try await story.check() == 0, "\(comment), after a reboot: \(story.daemon.standardError)")
        let published = try #require(story.issuedAt)
        #expect(abs(published.timeIntervalSinceNow) < 3600, "the snapshot is issued at the right time, not \(published)")
    }

    @Test("A wall clock a year ahead while the daemon runs, then set right: a renewal, a restart and a reboot leave the subscriber unlocked")
    func yearAheadWhileRunning() async throws {
        try await Fixture.with { fixture in
            let story = try await Story(fixture)
            let follower = try story.startFollower()
            defer { follower.send(SIGKILL) }
            // The clock runs a year ahead; an event arrives meanwhile and the daemon publishes.
            try story.shim.setOffset(Self.year)
            try await story.ingest(Self.renewalInfo(autoRenew: true, signed: Date()))
            let duringJump = try #require(story.issuedAt)
            #expect(duringJump.timeIntervalSinceNow < 3600, "the daemon published \(duringJump), which the boot clock does not corroborate")
            try story.shim.setOffset(0)
            // Apple renews the subscription.
            try await story.ingest(Self.renewal(id: "8002"))
            #expect(await story.followerShowsUnlocked(follower), "the widget follower: \(follower.standardOutput)")
            try await Self.expectUnlockedThroughRestartAndReboot(story, "the renewed subscriber after the clock was set right")
        }
    }

    @Test("A daemon started during a five-second forward jump leaves the subscriber unlocked once the clock is right")
    func startedDuringJump() async throws {
        try await Fixture.with { fixture in
            let story = try await Story(fixture)
            let before = story.lastGeneration
            story.daemon.send(SIGTERM)
            #expect(await story.daemon.waitForExit(timeout: .seconds(20)) == 0)
            try story.shim.setOffset(Self.year)
            story.daemon = try BuiltTools.start("entitlementd", fixture.common, environment: story.shim.environment)
            try await story.awaitPublished(after: 0)
            let published = try #require(fixture.snapshot())
            #expect(published.generation > before)
            #expect(published.issuedAt.timeIntervalSinceNow < 3600, "the daemon published \(published.issuedAt) on a boot clock that says otherwise")
            try story.shim.setOffset(0)
            try await Self.expectUnlockedThroughRestartAndReboot(story, "the subscriber after the jump")
        }
    }

    @Test("A daemon started on a new boot during a forward jump is set right by the next renewal")
    func newBootDuringJumpSetRightByRenewal() async throws {
        try await Fixture.with { fixture in
            let story = try await Story(fixture)
            story.daemon.send(SIGTERM)
            #expect(await story.daemon.waitForExit(timeout: .seconds(20)) == 0)
            // A new boot has nothing to corroborate its first reading with: the jump is believed.
            try story.shim.reboot()
            try story.shim.setOffset(Self.year)
            story.daemon = try BuiltTools.start("entitlementd", fixture.common, environment: story.shim.environment)
            try await story.awaitPublished(after: 0)
            try story.shim.setOffset(0)
            #expect(try await story.check() == 1, "a time the daemon had no reason to doubt still holds")
            // An Apple-signed renewal, newer than every event before, shows the time ran ahead.
            try await story.ingest(Self.renewal(id: "8002"))
            #expect(story.daemon.standardError.contains("clock: re-anchored"), "\(story.daemon.standardError)")
            try await Self.expectUnlockedThroughRestartAndReboot(story, "the renewed subscriber")
            // A replayed old event (not newer than every one before) moves nothing back.
            try story.shim.setOffset(-10 * 86_400)
            let before = try #require(story.issuedAt)
            try await story.ingest(Self.renewalInfo(autoRenew: false, signed: story.boughtAt.addingTimeInterval(-3600)))
            let after = try #require(story.issuedAt)
            #expect(after >= before, "an old signedDate wound the daemon's time back from \(before) to \(after)")
        }
    }

    @Test("A daemon that saw the year 2301 for three seconds publishes nothing a reader refuses, then or after a restart")
    func year2301() async throws {
        try await Fixture.with { fixture in
            let story = try await Story(fixture)
            let follower = try story.startFollower()
            defer { follower.send(SIGKILL) }
            let generation = story.lastGeneration
            let year2301 = Date(timeIntervalSince1970: 10_445_328_000)  // 2301-01-01T00:00:00Z
            try story.shim.setOffset(Int64(year2301.timeIntervalSinceNow))
            // The subscriber turns auto-renew off meanwhile (a change to publish). Plain ingest:
            // `--wait` would wait for a snapshot a reader accepts.
            let queued = try await BuiltTools.run(
                "entitlementctl", ["ingest", "-"] + fixture.common, input: Self.renewalInfo(autoRenew: false, signed: Date()) + "\n")
            try #require(queued.status == 0, "\(queued.standardError)")
            try await story.awaitPublished(after: generation)
            let during = try await story.status()
            #expect(during.status == 0, "the snapshot published while the clock read 2301: \(during.standardError)")
            try story.shim.setOffset(0)
            #expect(try await story.check() == 0, "the subscriber once the clock is right: \(story.daemon.standardError)")
            try await story.restartDaemon()
            let after = try await story.status()
            #expect(after.status == 0, "the snapshot after a restart: \(after.standardError)")
            #expect(try await story.check() == 0, "the subscriber after a restart: \(story.daemon.standardError)")
            #expect(await story.followerShowsUnlocked(follower), "the widget follower: \(follower.standardOutput)")
        }
    }

    @Test("A daemon first started while the clock reads 2301 publishes once the clock is right, nothing before")
    func firstStartIn2301() async throws {
        try await Fixture.with { fixture in
            let shim = try await ClockShim.make(in: fixture.root + "/shim")
            try shim.setOffset(Int64(Date(timeIntervalSince1970: 10_445_328_000).timeIntervalSinceNow))
            let daemon = try BuiltTools.start("entitlementd", fixture.common, environment: shim.environment)
            defer { daemon.send(SIGKILL) }
            // With nothing to anchor to, no instant is justified: the publish waits and is retried.
            let waited = await ChildProcess.wait(timeout: .seconds(20)) {
                daemon.standardError.contains("cannot publish at") || daemon.standardError.contains("published generation") || !daemon.isRunning
            }
            #expect(waited && !daemon.standardError.contains("published generation"), "\(daemon.standardError)")
            try shim.setOffset(0)
            let published = await ChildProcess.wait(timeout: .seconds(20)) { daemon.standardError.contains("published generation") }
            #expect(published, "\(daemon.standardError)")
            let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + fixture.common)
            #expect(status.status == 0, "\(status.standardError)")
            #expect(abs(try #require(fixture.snapshot()).issuedAt.timeIntervalSinceNow) < 3600)
        }
    }
}
