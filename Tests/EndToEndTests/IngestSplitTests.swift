import Broker
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// What `entitlementctl ingest` acknowledges, the daemon applies: an input the daemon would
/// refuse as one inbox file (larger than its cap) is queued as several files it accepts, in order.
@Suite("Ingest within the daemon's limits", .timeLimit(.minutes(3)))
struct IngestSplitTests {
    static let lifetime = "com.irenews.geko.plus.lifetime"

    /// `count` transaction lines, each padded (an unknown field, which readers tolerate) to just
    /// under the largest line accepted: expired monthly subscriptions, and last the lifetime purchase.
    static func paddedLines(count: Int) -> [String] {
        let padding = String(repeating: "x", count: EventLine.maximumLength - 1024)
        let now = Date()
        return (0..<count).map { index in
            let last = index == count - 1
            let line = Fixture.transaction(
                id: "52\(index)", product: last ? lifetime : "com.irenews.geko.plus.monthly",
                purchased: now.addingTimeInterval(last ? -60 : -60 * 86_400), expires: last ? nil : now.addingTimeInterval(-30 * 86_400))
            return "{\"padding\":\"\(padding)\"," + String(line.dropFirst())
        }
    }

    @Test("A 17 MiB input is acknowledged as inbox files within the daemon's cap, in input order, and all of it is applied")
    func largeInputIsQueuedAsFilesTheDaemonAccepts() async throws {
        try await Fixture.with { fixture in
            let lines = Self.paddedLines(count: 17)
            let input = fixture.root + "/large.jsonl"
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
            #expect(lines.reduce(0) { $0 + $1.utf8.count + 1 } > Inbox.maximumFileSize)

            let ingest = try await fixture.run("entitlementctl", ["ingest", input] + fixture.common)
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")

            // Every queued file fits the daemon's cap, and in inbox order they hold the input's lines in order.
            let inbox = Inbox(directory: fixture.layout.inboxDirectory)
            let names = try inbox.pending()
            #expect(names.count == 2, "queued: \(names)")
            var queued: [String] = []
            for name in names {
                let size = try FileManager.default.attributesOfItem(atPath: inbox.directory + "/" + name)[.size] as? Int ?? .max
                #expect(size <= Inbox.maximumFileSize, "\(name): \(size) bytes")
                queued += try inbox.read(name).filter { !$0.isEmpty }
            }
            #expect(queued == lines)
            #expect(ingest.standardOutput.split(separator: "\n").map(String.init) == names.map { "queued \($0)" })

            // The daemon applies every file: the lifetime purchase of the last line unlocks.
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let applied = await ChildProcess.wait(timeout: .seconds(60)) {
                fixture.snapshot()?.entitlements["plus"]?.productId == Self.lifetime && (try? inbox.pending().isEmpty) == true
            }
            #expect(applied, "daemon: \(daemon.standardError)")
            let rejected = (try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.rejectedDirectory)) ?? []
            #expect(rejected.isEmpty, "rejected: \(rejected)")
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("ingest --wait of a 17 MiB input succeeds once the daemon has applied every file it was queued as")
    func largeInputWaitIsPublished() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            let input = fixture.root + "/large.jsonl"
            try Data((Self.paddedLines(count: 17).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
            let ingest = try await fixture.run("entitlementctl", ["ingest", "--wait", "--timeout", "60", input] + fixture.common)
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            #expect(fixture.snapshot()?.entitlements["plus"]?.productId == Self.lifetime)
            #expect(try Inbox(directory: fixture.layout.inboxDirectory).pending().isEmpty)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("The inbox cap holds at least one line of the largest size a client accepts")
    func capHoldsTheLargestLine() {
        #expect(EventLine.maximumLength + 1 <= Inbox.maximumFileSize)
    }
}
