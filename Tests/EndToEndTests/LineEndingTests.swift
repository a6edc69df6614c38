import Entitlements
import Foundation
import ServiceRuntime
import SharedDefaults
import Testing
import TestSupport

/// JSON Lines with CRLF line ends and a leading UTF-8 byte-order mark (what Windows tools write)
/// are accepted by every input: `ingest` and `evaluate` (file and standard input) and the
/// daemon's inbox.
@Suite("CRLF and byte-order mark", .timeLimit(.minutes(2)))
struct LineEndingTests {
    /// Two lines about the monthly plan and the lifetime purchase, CRLF-terminated, BOM first.
    static func windowsText(now: Date) -> String {
        let monthly = Fixture.transaction(id: "7001", purchased: now.addingTimeInterval(-60), expires: now.addingTimeInterval(3600))
        let lifetime = Fixture.transaction(id: "7002", product: "com.irenews.geko.plus.lifetime", purchased: now.addingTimeInterval(-30), expires: nil)
        return "\u{FEFF}" + monthly + "\r\n" + lifetime + "\r\n"
    }

    @Test("evaluate reads CRLF and a BOM from a file and from standard input")
    func evaluate() async throws {
        try await Fixture.with { fixture in
            let text = Self.windowsText(now: Date())
            let file = fixture.root + "/windows.jsonl"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            for (arguments, input) in [([file], nil), (["-"], text)] as [([String], String?)] {
                let result = try await fixture.run("entitlementctl", ["evaluate"] + arguments + fixture.common, input: input)
                #expect(result.status == 0, "\(result.standardError)")
                #expect(result.standardOutput.contains(#""productId":"com.irenews.geko.plus.lifetime""#), "\(result.standardOutput)")
                #expect(result.standardOutput.contains(#""state":"purchased""#))
            }
        }
    }

    @Test("ingest queues a CRLF file with a BOM and the daemon publishes it; a line number counts CRLF lines")
    func ingest() async throws {
        try await Fixture.with { fixture in
            let file = fixture.root + "/windows.jsonl"
            try Data(Self.windowsText(now: Date()).utf8).write(to: URL(fileURLWithPath: file))
            let bad = fixture.root + "/bad.jsonl"
            try Data("\u{FEFF}\r\n{\"transactionId\": \r\n".utf8).write(to: URL(fileURLWithPath: bad))
            let refused = try await fixture.run("entitlementctl", ["ingest", bad] + fixture.common)
            #expect(refused.status == 65)
            #expect(refused.standardError.hasPrefix("entitlementctl: \(bad):2: "), "\(refused.standardError)")

            let daemon = try await fixture.startDaemon()
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", file] + fixture.common)
            let snapshot = fixture.snapshot()
            #expect(await daemon.stop() == 0)
            #expect(ingest.status == 0, "\(ingest.standardError)")
            #expect(snapshot?.status(of: "plus").productId == "com.irenews.geko.plus.lifetime")
        }
    }

    @Test("The daemon applies an inbox file written with CRLF and a BOM by another writer")
    func daemonInbox() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let before = fixture.snapshot()?.generation ?? 0
            let inbox = fixture.layout.inboxDirectory
            let temporary = inbox + "/.incoming"
            try Data(Self.windowsText(now: Date()).utf8).write(to: URL(fileURLWithPath: temporary))
            try FileManager.default.moveItem(atPath: temporary, toPath: inbox + "/99999999999999999999-1-1.events")
            let applied = await ChildProcess.wait(timeout: .seconds(20)) {
                (fixture.snapshot()?.generation ?? 0) > before
                    && fixture.snapshot()?.status(of: "plus").productId == "com.irenews.geko.plus.lifetime"
            }
            #expect(await daemon.stop() == 0)
            #expect(applied, "daemon: \(daemon.standardError)")
            #expect(!daemon.standardError.contains("refused"), "\(daemon.standardError)")
        }
    }
}
