import Broker
import Entitlements
import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Kept means kept: a catalog change decides what journaled facts grant, never whether they are
/// kept; and a journal cut short inside its checkpoint is reported, never served as less.
@Suite("Journal keeping end to end", .timeLimit(.minutes(4)))
struct JournalKeepingTests {
    static let lifetime = JournalDamageTests.lifetime

    /// A copy of the shipped catalog (and its `.storekit` file) in `directory` for `environment`;
    /// returns its path.
    static func catalog(environment: String, in directory: String) throws -> String {
        try catalog(replacingEnvironmentWith: "\"environment\": \"\(environment)\"", in: directory)
    }

    /// A copy of the shipped catalog (and its `.storekit` file) in `directory` whose
    /// `"environment": "Xcode"` member is replaced by `members`; returns its path.
    static func catalog(replacingEnvironmentWith members: String, in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shared = URL(fileURLWithPath: BuiltTools.defaultCatalog).deletingLastPathComponent().path
        try FileManager.default.copyItem(atPath: shared + "/Geko.storekit", toPath: directory + "/Geko.storekit")
        let catalog = try String(contentsOfFile: BuiltTools.defaultCatalog, encoding: .utf8)
            .replacingOccurrences(of: "\"environment\": \"Xcode\"", with: members)
        #expect(catalog.contains(members))
        let path = directory + "/Catalog.json"
        try catalog.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Expired monthly transactions of `environment`, more than the daemon's compaction floor
    /// (1 MiB) of journal, so that draining them compacts the journal.
    static func history(environment: String) -> String {
        let long = Date().addingTimeInterval(-400 * 86_400)
        var lines: [String] = []
        var bytes = 0
        while bytes < 1_300_000 {
            let line = Fixture.transaction(
                id: "h\(lines.count)", purchased: long, expires: long.addingTimeInterval(30 * 86_400), environment: environment)
            bytes += line.utf8.count
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Ingests `input` with `options` and waits until the daemon drained the inbox.
    static func ingest(_ fixture: Fixture, _ input: String, _ options: [String]) async throws {
        let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + options, input: input)
        #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
        #expect(await ChildProcess.wait(timeout: .seconds(60)) { JournalDamageTests.inboxIsEmpty(fixture) })
    }

    /// Waits until `process` has logged `text`.
    static func logged(_ process: ChildProcess, _ text: String) async -> Bool {
        await ChildProcess.wait(timeout: .seconds(60)) { process.standardError.contains(text) }
    }

    /// Waits until the published `plus` is `state` (any inactive state for `nil`).
    static func plus(_ fixture: Fixture, is state: EntitlementState?) async -> Bool {
        await ChildProcess.wait(timeout: .seconds(20)) {
            guard let status = fixture.snapshot()?.entitlements["plus"] else { return false }
            return state.map { status.state == $0 } ?? !status.active
        }
    }

    @Test("A journaled purchase survives a catalog of another environment, a compaction under it, and comes back with the catalog")
    func catalogChangeKeepsPurchase() async throws {
        try await Fixture.with { fixture in
            let purchase = Fixture.transaction(id: "8001", product: Self.lifetime, purchased: Date().addingTimeInterval(-3600), expires: nil)
            let daemon = try await fixture.startDaemon()
            try await Self.ingest(fixture, purchase + "\n", fixture.common)
            #expect(await Self.plus(fixture, is: .purchased))
            #expect(await daemon.stop() == 0)

            // The catalog's environment changed and the daemon restarted: the purchase grants
            // nothing under it, and a history long enough to compact the journal arrives.
            let other = try Self.catalog(environment: "LocalTesting", in: fixture.root + "/other")
            let otherOptions = ["--container", fixture.container, "--group", fixture.group, "--catalog", other]
            let changed = try BuiltTools.start("entitlementd", otherOptions)
            try await Self.ingest(fixture, Self.history(environment: "LocalTesting"), otherOptions)
            let compacted = await Self.logged(changed, "compacted the journal")
            #expect(compacted, "the history must compact the journal: \(changed.standardError.suffix(2000))")
            #expect(await Self.plus(fixture, is: nil))
            let checkUnder = try await fixture.run("entitlementctl", ["check", "widgets"] + otherOptions)
            #expect(checkUnder.status == 1, "a purchase of another environment grants nothing under this catalog: \(checkUnder.standardOutput)")
            #expect(await changed.stop() == 0, "\(changed.standardError.suffix(2000))")

            // The catalog put back: the purchase counts again.
            let restored = try await JournalDamageTests.restart(fixture)
            #expect(await Self.plus(fixture, is: .purchased))
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 0, "the purchase must be unlocked again: \(check.standardOutput) \(restored.standardError.suffix(2000))")
            #expect(await restored.stop() == 0)
        }
    }

    @Test(
        "A purchase ingest acknowledged is kept when the daemon drains it under a catalog that does not count it, and counts with the catalog back",
        arguments: [#""environment": "LocalTesting""#, #""environment": "Xcode", "signatures": "required""#])
    func queuedPurchaseSurvivesCatalogChange(otherCatalog members: String) async throws {
        try await Fixture.with { fixture in
            // Acknowledged with no daemon running: queued in the inbox.
            let purchase = Fixture.transaction(id: "8201", product: Self.lifetime, purchased: Date().addingTimeInterval(-3600), expires: nil)
            let ingest = try await fixture.run("entitlementctl", ["ingest", "-"] + fixture.common, input: purchase + "\n")
            #expect(ingest.status == 0, "ingest: \(ingest.standardError)")
            // A line whose signature does not verify counts under no catalog: still refused.
            let signed = TestSigner.jws(purchase.replacingOccurrences(of: "8201", with: "8202"))
            let broken = String(signed.dropLast(4)) + (signed.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            let brokenName = "00000000000000000000-1-1.events"
            try Data((broken + "\n").utf8).write(to: URL(fileURLWithPath: fixture.layout.inboxDirectory + "/" + brokenName))

            // Drained under a catalog of another environment, or one that now requires signatures.
            let other = try Self.catalog(replacingEnvironmentWith: members, in: fixture.root + "/other")
            let otherOptions = ["--container", fixture.container, "--group", fixture.group, "--catalog", other]
            let changed = try BuiltTools.start("entitlementd", otherOptions)
            #expect(await ChildProcess.wait(timeout: .seconds(60)) { JournalDamageTests.inboxIsEmpty(fixture) }, "\(changed.standardError)")
            let rejected = (try? FileManager.default.contentsOfDirectory(atPath: fixture.layout.rejectedDirectory)) ?? []
            #expect(Set(rejected) == [brokenName, RefusalRecord.fileName(for: brokenName)], "only the broken line is refused: \(rejected)")
            let reason = RefusalRecord.reason(for: brokenName, in: fixture.layout.rejectedDirectory) ?? ""
            #expect(reason.contains("signature"), "\(reason)")
            let checkUnder = try await fixture.run("entitlementctl", ["check", "widgets"] + otherOptions)
            #expect(checkUnder.status == 1, "the purchase grants nothing under this catalog: \(checkUnder.standardOutput)")
            #expect(await changed.stop() == 0, "\(changed.standardError.suffix(2000))")

            // The catalog put back: the purchase counts.
            let restored = try await JournalDamageTests.restart(fixture)
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 0, "the acknowledged purchase must be unlocked: \(check.standardOutput) \(restored.standardError.suffix(2000))")
            #expect(await restored.stop() == 0)
        }
    }

    @Test("A journal cut at a record boundary inside its checkpoint is refused at start, not served as less")
    func cutInsideCheckpointIsRefused() async throws {
        try await Fixture.with { fixture in
            let purchase = Fixture.transaction(id: "8101", product: Self.lifetime, purchased: Date().addingTimeInterval(-3600), expires: nil)
            let daemon = try await fixture.startDaemon()
            try await Self.ingest(fixture, purchase + "\n" + Self.history(environment: "Xcode"), fixture.common)
            #expect(await Self.plus(fixture, is: .purchased))
            #expect(await Self.logged(daemon, "compacted the journal"))
            #expect(await daemon.stop() == 0)
            let published = fixture.snapshot()?.generation

            let path = fixture.layout.journalPath
            let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let records = JournalScan(whole).records
            let summary = try #require(records.first { $0.kind == .summary }, "the journal holds a checkpoint")
            let facts = records.filter { $0.kind == .fact }
            #expect(facts.count > 100)
            // Cut where the closing summary begins, in the middle of the facts, and right after the first line.
            for cut in [summary.offset, facts[facts.count / 2].offset, JournalRecord.header.count] {
                try Data(whole.prefix(cut)).write(to: URL(fileURLWithPath: path))
                try await JournalDamageTests.expectRefusal(fixture, naming: "cut short")
                #expect(fixture.snapshot()?.generation == published, "nothing is published from a journal cut short")
            }
            let check = try await fixture.run("entitlementctl", ["check", "widgets"] + fixture.common)
            #expect(check.status == 0, "readers keep the last good snapshot: \(check.standardOutput)")

            // As with a torn record: the repair sets the damage aside, and the daemon starts again.
            try Data(whole.prefix(summary.offset)).write(to: URL(fileURLWithPath: path))
            let repair = try await fixture.run("entitlementctl", ["journal-repair"] + fixture.common)
            #expect(repair.status == 0 && repair.standardOutput.contains("cut short"), "\(repair.standardOutput)\(repair.standardError)")
            let restarted = try await JournalDamageTests.restart(fixture)
            #expect(await restarted.stop() == 0, "\(restarted.standardError)")
        }
    }
}
