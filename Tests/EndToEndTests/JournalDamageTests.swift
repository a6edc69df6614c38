import Broker
import EntitlementModel
import Foundation
import ServiceRuntime
import SharedDefaults
import TestSupport
import Testing

/// A damaged journal is reported, never turned silently into more (or less) access than was
/// acknowledged; the repair command sets the damage aside and says what was lost.
@Suite("Journal damage end to end", .timeLimit(.minutes(3)))
struct JournalDamageTests {
    static let lifetime = "com.irenews.geko.plus.lifetime"

    /// Lifetime purchase, then its refund, each applied and published; the daemon stopped.
    static func purchaseThenRefund(_ fixture: Fixture) async throws {
        let daemon = try await fixture.startDaemon()
        let bought = Date().addingTimeInterval(-3600)
        let purchase = Fixture.transaction(id: "5001", product: lifetime, purchased: bought, expires: nil)
        let refund = Fixture.transaction(
            id: "5001", product: lifetime, purchased: bought, expires: nil, signed: bought.addingTimeInterval(600),
            revoked: bought.addingTimeInterval(600))
        for line in [purchase, refund] {
            let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: line + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { Self.inboxIsEmpty(fixture) })
        }
        #expect(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot()?.entitlements["plus"]?.state == .revoked })
        #expect(await daemon.stop() == 0)
    }

    static func inboxIsEmpty(_ fixture: Fixture) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.inboxDirectory)) ?? ["?"])
            .allSatisfy { !$0.hasSuffix(".events") }
    }

    /// Cuts the journal's last line in half (disk damage, a bad copy).
    static func cutLastLineInHalf(_ path: String) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.last == 0x0A)
        bytes.removeLast()
        let start = (bytes.lastIndex(of: 0x0A) ?? -1) + 1
        bytes.removeLast((bytes.count - start) / 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("A refund cut in half is refused in one line; after repair the state does not unlock")
    func tornRefundIsRefusedThenRepaired() async throws {
        try await Fixture.with { fixture in
            try await Self.purchaseThenRefund(fixture)
            try Self.cutLastLineInHalf(fixture.layout.journalPath)
            let published = fixture.snapshot()?.generation

            let restarted = try BuiltTools.start("entitlementd", fixture.common)
            let status = await restarted.waitForExit(timeout: .seconds(20))
            if status == nil { _ = await restarted.stop() }
            #expect(status == 65, "a damaged journal must stop the daemon with 65: \(restarted.standardError)")
            let errorLines = restarted.standardError.split(separator: "\n").filter { $0.contains("journal") && $0.contains("record") }
            #expect(errorLines.count == 1, "one line naming the record: \(restarted.standardError)")
            #expect(errorLines.first?.contains(fixture.layout.journalPath) == true)
            // Nothing was published from the damaged journal: readers keep the refund.
            #expect(fixture.snapshot()?.generation == published)
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 1, "check must stay locked: \(check.standardOutput)")

            let repair = try await fixture.run("entitlementctl", ["journal-repair"] + fixture.common)
            #expect(repair.status == 0, "repair: \(repair.standardError)")
            #expect(repair.standardOutput.contains("5001"), "the repair lists the lost transaction: \(repair.standardOutput)")
            let sideFiles = try FileManager.default.contentsOfDirectory(atPath: fixture.layout.brokerDirectory).filter { $0.hasPrefix("journal-damaged-") }
            #expect(sideFiles.count == 1, "damaged bytes quarantined: \(sideFiles)")

            let daemon = try await fixture.startDaemon()
            let honest = await ChildProcess.wait(timeout: .seconds(20)) {
                (fixture.snapshot()?.generation ?? 0) > (published ?? 0)
            }
            #expect(honest)
            #expect(fixture.snapshot()?.entitlements["plus"]?.active == false, "the lost refund must not turn into access")
            let checkAfter = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(checkAfter.status == 1)
            #expect(daemon.standardError.contains("withheld"), "the daemon says what it withholds: \(daemon.standardError)")
            #expect(await daemon.stop() == 0)
        }
    }
}
