import Broker
import EntitlementDefaults
import Foundation
import ServiceRuntime
import Testing
import TestSupport

/// The same rules through the real tools: `entitlementctl evaluate` and `ingest` refuse with exit
/// 65 and one line naming the input line and the reason (nothing queued), and the daemon
/// re-verifies what it drains from its inbox.
@Suite("JWS refusals through the tools", .serialized, .timeLimit(.minutes(3)))
struct CommandRefusalTests {
    static let testRootCatalog = Vectors.path("catalogs/Sandbox-test-root.json")

    @Test("Tampered fixtures: evaluate and ingest exit 65 naming FILE:1 and the reason; nothing queued",
          arguments: Vectors.tampered.map(\.file))
    func tampered(file: String) async throws {
        let reason = try #require(Vectors.tampered.first { $0.file == file }?.reason)
        let input = Vectors.path("tampered/\(file).jsonl")
        try await withTemporaryDirectory { root in
            let container = root + "/container"
            let evaluate = try await BuiltTools.run(
                "entitlementctl", ["evaluate", "--catalog", Self.testRootCatalog, "--now", "2023-03-28T00:00:00Z", input])
            Self.expectRefusal(evaluate, file: input, reason: reason)
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--catalog", Self.testRootCatalog, "--container", container, input])
            Self.expectRefusal(ingest, file: input, reason: reason)
            let queued = (try? FileManager.default.contentsOfDirectory(atPath: container + "/Library/Broker/inbox")) ?? []
            #expect(queued.isEmpty, "queued: \(queued)")
        }
    }

    static func expectRefusal(_ result: BuiltTools.Result, file: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 65, "exit \(result.status): \(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, sourceLocation: sourceLocation)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("entitlementctl: \(file):1: "), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(reason), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    @Test("Apple's Sandbox notifications: evaluate and ingest accept them under required signatures")
    func realSandbox() async throws {
        let input = Vectors.path("apple/qysmat-notifications.jsonl")
        let catalog = Vectors.path("catalogs/Sandbox.json")
        try await withTemporaryDirectory { root in
            let evaluate = try await BuiltTools.run("entitlementctl", ["evaluate", "--catalog", catalog, "--now", "2023-03-28T06:50:00Z", input])
            #expect(evaluate.status == 0, "\(evaluate.standardError)")
            #expect(evaluate.standardOutput.contains(#""premium":{"#), "\(evaluate.standardOutput)")
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", "--catalog", catalog, "--container", root + "/c", input])
            #expect(ingest.status == 0, "\(ingest.standardError)")
        }
    }

    @Test("Xcode-signed bare JWS lines: accepted by default, refused under required, accepted with the certificate trusted")
    func xcodeSigned() async throws {
        let input = try Vectors.text("apple/apple-xcode-signed-transaction.jws") + "\n" + Vectors.text("apple/apple-xcode-signed-renewal-info.jws") + "\n"
        func evaluate(_ catalog: String) async throws -> BuiltTools.Result {
            try await BuiltTools.run(
                "entitlementctl", ["evaluate", "--catalog", Vectors.path("catalogs/\(catalog)"), "--now", "2023-10-20T00:00:00Z", "-"], input: input)
        }
        let byDefault = try await evaluate("Xcode-default.json")
        #expect(byDefault.status == 0, "\(byDefault.standardError)")
        #expect(byDefault.standardOutput.contains(#""state":"subscribed""#), "\(byDefault.standardOutput)")
        let required = try await evaluate("Xcode-required.json")
        Self.expectRefusal(required, file: "<stdin>", reason: "untrusted root")
        let trusted = try await evaluate("Xcode-trusted.json")
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(trusted.standardOutput == byDefault.standardOutput)
    }

    @Test("The daemon re-verifies its inbox: a tampered line written there directly is refused, a good one applied")
    func daemonReverifies() async throws {
        try await withTemporaryDirectory { root in
            let layout = ContainerLayout(container: root + "/container", group: "group.test.jws")
            let common = ["--container", layout.container, "--group", layout.group, "--catalog", Self.testRootCatalog]
            let daemon = try BuiltTools.start("entitlementd", common)
            do {
                let reader = { FileManager.default.fileExists(atPath: layout.preferencesDirectory + "/" + layout.group + ".plist") }
                #expect(try await eventually(timeout: .seconds(30)) { reader() || !daemon.isRunning }, "no first publish: \(daemon.standardError)")
                let inbox = Inbox(directory: layout.inboxDirectory)
                // Written around `ingest`, as anyone with write access to the container could.
                _ = try inbox.enqueue(try Vectors.lines("tampered/other-key-signature.jsonl"))
                _ = try inbox.enqueue(try Vectors.lines("tampered/good-test-root.jsonl"))
                let drained = try await eventually(timeout: .seconds(30)) {
                    (try inbox.pending()).isEmpty
                        && !((try? FileManager.default.contentsOfDirectory(atPath: layout.rejectedDirectory)) ?? []).isEmpty
                        && ((try? String(contentsOfFile: layout.journalPath, encoding: .utf8)) ?? "").contains("eyJ")
                }
                #expect(drained, "daemon log: \(daemon.standardError)")
                #expect(daemon.standardError.contains("bad signature"), "\(daemon.standardError)")
                let journal = JournalScan(Array((try? Data(contentsOf: URL(fileURLWithPath: layout.journalPath))) ?? Data()))
                let good = try Vectors.lines("tampered/good-test-root.jsonl")[0]
                #expect(journal.damage.isEmpty)
                #expect(journal.records.filter { $0.kind == .event }.map { String(decoding: $0.payload, as: UTF8.self) } == [good])
            } catch {
                await daemon.stop()
                throw error
            }
            #expect(await daemon.stop() == 0)
        }
    }
}
