import Broker
import Entitlements
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

    /// Starts the daemon on a container that already has a snapshot, and waits for its own first
    /// publish (a newer generation), so that it is fully up before anything is asked of it.
    static func restart(_ fixture: Fixture) async throws -> ChildProcess {
        let before = fixture.snapshot()?.generation ?? 0
        let daemon = try BuiltTools.start("entitlementd", fixture.common)
        let published = await ChildProcess.wait(timeout: .seconds(20)) { (fixture.snapshot()?.generation ?? 0) > before || !daemon.isRunning }
        guard published, daemon.isRunning else {
            _ = await daemon.stop()
            throw FixtureError("entitlementd did not publish: \(daemon.standardError)")
        }
        return daemon
    }

    /// Positions and offsets of the journal's event records.
    static func eventRecords(_ path: String) throws -> [(index: Int, offset: Int)] {
        JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).records.filter { $0.kind == .event }.map { ($0.index, $0.offset) }
    }

    /// Starts the daemon expecting it to refuse the journal: exit 65 and one line naming it.
    static func expectRefusal(_ fixture: Fixture, naming problem: String) async throws {
        let daemon = try BuiltTools.start("entitlementd", fixture.common)
        let status = await daemon.waitForExit(timeout: .seconds(20))
        if status == nil { _ = await daemon.stop() }
        #expect(status == 65, "\(daemon.standardError)")
        let lines = daemon.standardError.split(separator: "\n").filter { $0.contains(fixture.layout.journalPath) }
        #expect(lines.count == 1 && lines[0].contains(problem), "one line naming the record: \(daemon.standardError)")
    }

    @Test("A flipped byte mid-file is refused as a checksum mismatch; repair names the lost purchase and withholds it")
    func flippedByteMidFile() async throws {
        try await Fixture.with { fixture in
            try await Self.purchaseThenRefund(fixture)
            let path = fixture.layout.journalPath
            let purchase = try #require(try Self.eventRecords(path).first)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[purchase.offset + 40] ^= 0x04  // inside the purchase's record
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try await Self.expectRefusal(fixture, naming: "record \(purchase.index) at byte \(purchase.offset): checksum mismatch")
            let repair = try await fixture.run("entitlementctl", ["journal-repair"] + fixture.common)
            #expect(repair.status == 0 && repair.standardOutput.contains("lost record \(purchase.index)"), "\(repair.standardOutput)\(repair.standardError)")
            let daemon = try await Self.restart(fixture)
            #expect(fixture.snapshot()?.entitlements["plus"]?.active == false)
            #expect(await daemon.stop() == 0, "\(daemon.standardError)")
        }
    }

    @Test("A damaged newline merging two records is refused; repair recovers both records and loses nothing")
    func mergedRecords() async throws {
        try await Fixture.with { fixture in
            try await Self.purchaseThenRefund(fixture)
            let path = fixture.layout.journalPath
            let events = try Self.eventRecords(path)
            #expect(events.count == 2)
            var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[events[1].offset - 1] = UInt8(ascii: " ")  // the newline between the purchase and the refund
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try await Self.expectRefusal(fixture, naming: "not a newline")
            let repair = try await fixture.run("entitlementctl", ["journal-repair"] + fixture.common)
            #expect(repair.status == 0, "\(repair.standardError)")
            #expect(repair.standardOutput.contains("3 records kept, 0 lost"), "\(repair.standardOutput)")
            let daemon = try await Self.restart(fixture)
            #expect(fixture.snapshot()?.entitlements["plus"]?.state == .revoked)
            #expect(await daemon.stop() == 0, "\(daemon.standardError)")
        }
    }

    @Test("A crash mid-append (torn last record, its inbox file still queued) is repaired quietly from the inbox")
    func crashMidAppend() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            #expect(await daemon.stop() == 0)
            // What a daemon killed inside its append leaves: the event queued, its record half written.
            let bought = Date().addingTimeInterval(-60)
            let purchase = Fixture.transaction(id: "6001", product: Self.lifetime, purchased: bought, expires: nil)
            _ = try Inbox(directory: fixture.layout.inboxDirectory).enqueue([purchase])
            let record = JournalRecord.encode(.event, Array(purchase.utf8))
            // A journal that has no record yet gets its header with its first append.
            let existing = (try? Data(contentsOf: URL(fileURLWithPath: fixture.layout.journalPath))) ?? Data()
            let torn = (existing.isEmpty ? JournalRecord.header : []) + record.prefix(record.count / 2)
            #expect(FileManager.default.createFile(atPath: fixture.layout.journalPath, contents: existing + Data(torn)))
            let restarted = try await Self.restart(fixture)
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot()?.entitlements["plus"]?.state == .purchased })
            #expect(!restarted.standardError.contains("refusing"), "\(restarted.standardError)")
            #expect(await restarted.stop() == 0)
            let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.layout.journalPath))))
            #expect(scan.damage.isEmpty && scan.tornTail == nil && scan.records.filter { $0.kind == .event }.count == 1)
        }
    }

    @Test("A journal in the unframed format (one JSON line per event) still loads, and is rewritten framed")
    func unframedJournalLoads() async throws {
        try await Fixture.with { fixture in
            let bought = Date().addingTimeInterval(-60)
            let purchase = Fixture.transaction(id: "7001", product: Self.lifetime, purchased: bought, expires: nil)
            try FileManager.default.createDirectory(atPath: fixture.layout.brokerDirectory, withIntermediateDirectories: true)
            try Data((purchase + "\n").utf8).write(to: URL(fileURLWithPath: fixture.layout.journalPath))
            let daemon = try await Self.restart(fixture)
            #expect(fixture.snapshot()?.entitlements["plus"]?.state == .purchased)
            #expect(await daemon.stop() == 0)
            let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.layout.journalPath))))
            #expect(scan.format == .framed && scan.damage.isEmpty)
            // Its one fact, now a checkpoint fact record.
            #expect(scan.records.filter { $0.kind == .fact }.count == 1)
        }
    }
}
