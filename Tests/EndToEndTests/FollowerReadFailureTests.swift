import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// A read that fails (a system call's error, not a bad file) is no refusal: the follower says its
/// frame is stale and reads again with a back-off until it has the file, with no further publish.
@Suite("Follower read failures", .timeLimit(.minutes(2)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux) to limit a running follower's descriptors"))
struct FollowerReadFailureTests {
    /// Sets the soft `RLIMIT_NOFILE` of process `pid` to `soft` (`prlimit --pid`, its hard limit
    /// unchanged); whether it worked.
    static func setOpenFileLimit(of pid: pid_t, to soft: UInt64) async throws -> Bool {
        let result = try await BuiltTools.run(executable: "/usr/bin/prlimit", ["--pid", String(pid), "--nofile=\(soft):"])
        return result.status == 0
    }

    /// This process's soft `RLIMIT_NOFILE`, which the follower inherited.
    static var inheritedOpenFileLimit: UInt64 {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        return UInt64(limit.rlim_cur)
    }

    @Test("After EMFILE on the refund's publish the follower shows it stale, then locked, with no further publish")
    func refundReadAfterEMFILE() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let (follower, lines) = try FollowerFrameTests.startFollower(fixture)
            defer { follower.send(SIGKILL) }
            let purchased = Date().addingTimeInterval(-60)
            let bought = try await FollowerFrameTests.ingest(fixture, Fixture.transaction(
                id: "6001", product: "com.irenews.geko.plus.lifetime", purchased: purchased, expires: nil))
            #expect(await ChildProcess.wait(timeout: .seconds(10)) {
                FollowerFrameTests.frames(lines).contains { $0.generation == bought && !$0.locked }
            })

            // No descriptor can be opened by the follower while the refund is published.
            #expect(try await Self.setOpenFileLimit(of: follower.processIdentifier, to: 0))
            let refund = Fixture.transaction(
                id: "6001", product: "com.irenews.geko.plus.lifetime", purchased: purchased, expires: nil,
                signed: Date(), revoked: Date())
            let refunded = try await FollowerFrameTests.ingest(fixture, refund)
            #expect(refunded > bought)
            let failed = await ChildProcess.wait(timeout: .seconds(10)) { follower.standardError.contains("EMFILE") }
            #expect(try await Self.setOpenFileLimit(of: follower.processIdentifier, to: Self.inheritedOpenFileLimit))
            #expect(failed, "follower: \(follower.standardError)")

            // Meanwhile its frame said it was stale; then, with no publish since, it shows the refund.
            #expect(await ChildProcess.wait(timeout: .seconds(15)) {
                FollowerFrameTests.frames(lines).last.map { $0.generation == refunded && $0.locked && !$0.stale } == true
            }, "frames: \(FollowerFrameTests.frames(lines)), stderr: \(follower.standardError)")
            #expect(FollowerFrameTests.frames(lines).contains { $0.generation == bought && !$0.locked && $0.stale },
                    "frames: \(FollowerFrameTests.frames(lines))")
            #expect(fixture.snapshot()?.generation == refunded)
            #expect(await follower.stop() == 0)
            #expect(await daemon.stop() == 0)
        }
    }
}
