import Foundation
import Glibc
import ServiceRuntime
import TestSupport
import Testing

/// Exit statuses a script can act on: a permission error is 77 (`EX_NOPERM`, retrying will not
/// help), not 75; and a client stopped by the file-size limit leaves no temporary file behind.
@Suite("Client exits", .timeLimit(.minutes(2)))
struct ClientExitTests {
    static let isRoot = geteuid() == 0
    /// A uid and gid that are not ours (`nobody` on most systems); `setpriv` needs no account.
    static let otherUser = "65534"
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `tool` with `arguments` as ``otherUser`` (`setpriv`, no supplementary groups).
    static func runAsOtherUser(_ tool: String, _ arguments: [String], input: String? = nil) async throws -> BuiltTools.Result {
        try await BuiltTools.run(
            executable: setpriv!, ["--reuid=\(otherUser)", "--regid=\(otherUser)", "--clear-groups", BuiltTools.path(tool)] + arguments,
            input: input)
    }

    @Test("Without permission on the container every tool exits 77 with one line naming the path, not 75 or 65",
          .enabled(if: isRoot && setpriv != nil, "needs root and setpriv to run a tool as another user"))
    func permissionDeniedIs77() async throws {
        try await Fixture.with { fixture in
            // The container as the daemon makes it: 0750, the daemon's (here root's) own.
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            // The other user must reach the tools and the catalog (the fixture's root is 0700).
            #expect(chmod(fixture.root, 0o755) == 0)
            let purchase = Fixture.transaction(id: "1201", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)

            let ingest = try await Self.runAsOtherUser("entitlementctl", ["ingest", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 77, "ingest: \(ingest.standardError)")
            #expect(ingest.standardError.split(separator: "\n").count == 1, "ingest: \(ingest.standardError)")
            #expect(ingest.standardError.contains(fixture.container) && ingest.standardError.contains("EACCES"), "ingest: \(ingest.standardError)")

            let status = try await Self.runAsOtherUser("entitlementctl", ["status"] + fixture.common)
            #expect(status.status == 77, "status: \(status.standardError)")
            #expect(status.standardError.split(separator: "\n").count == 1, "status: \(status.standardError)")

            let check = try await Self.runAsOtherUser("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 77, "check: \(check.standardError)")
            #expect(check.standardError.split(separator: "\n").count == 1, "check: \(check.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("An input file the user may not read is 77, a missing one 64, each with one line naming it",
          .enabled(if: isRoot && setpriv != nil, "needs root and setpriv to run a tool as another user"))
    func unreadableInputIs77() async throws {
        try await Fixture.with { fixture in
            #expect(chmod(fixture.root, 0o755) == 0)
            let purchase = Fixture.transaction(id: "1301", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let input = fixture.root + "/purchase.jsonl"
            try (purchase + "\n").write(toFile: input, atomically: false, encoding: .utf8)
            #expect(chmod(input, 0o600) == 0)

            let unreadable = try await Self.runAsOtherUser("entitlementctl", ["ingest", input] + fixture.common)
            #expect(unreadable.status == 77, "ingest: \(unreadable.status) \(unreadable.standardError)")
            #expect(unreadable.standardError.split(separator: "\n").count == 1, "ingest: \(unreadable.standardError)")
            #expect(unreadable.standardError.contains(input) && unreadable.standardError.contains("EACCES"), "ingest: \(unreadable.standardError)")

            let missing = try await BuiltTools.run(executable: BuiltTools.path("entitlementctl"), ["ingest", input + ".missing"] + fixture.common)
            #expect(missing.status == 64, "ingest: \(missing.status) \(missing.standardError)")
            #expect(missing.standardError.contains(input + ".missing"), "ingest: \(missing.standardError)")
        }
    }

    @Test("An ingest stopped by the file-size limit (ulimit -f) fails with one line and leaves no temporary file in the inbox")
    func fileSizeLimitLeavesNoTemporaryFile() async throws {
        try await Fixture.with { fixture in
            let inbox = fixture.layout.inboxDirectory
            try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
            // 40 purchases, about 16 KiB: more than the 4 KiB the limit lets a file hold.
            let input = (0..<40).map {
                Fixture.transaction(id: "12\($0)", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            }.joined(separator: "\n") + "\n"
            let result = try await BuiltTools.run(
                executable: "/usr/bin/prlimit", ["--fsize=4096", BuiltTools.path("entitlementctl"), "ingest", "-"] + fixture.common,
                input: input)
            #expect(result.status == 75, "ingest: \(result.status) \(result.standardError)")
            #expect(result.standardError.contains("EFBIG"), "ingest: \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "ingest: \(result.standardError)")
            let left = try FileManager.default.contentsOfDirectory(atPath: inbox)
            #expect(left.isEmpty, "left in the inbox: \(left)")
        }
    }
}
