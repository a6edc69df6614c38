@testable import Broker
@testable import Entitlements
@testable import StoreKitFormats
import Foundation
import TestSupport
import Testing

/// The checkpoint a compaction writes (each fact as the JSON the event decoder reads): every field
/// reads back exactly, every damaged byte is caught by the framing, a payload that is well framed
/// but malformed is refused (never a crash), the catalog still judges each fact, and checkpoints
/// in the earlier text and binary forms still load and are rewritten.
@Suite("Checkpoint format", .timeLimit(.minutes(2)))
struct CheckpointFormatTests {
    static let catalogPath = CompactionDifferentialTests.catalogPath
    static let bundle = "com.irenews.geko"
    static let monthly = CompactionDifferentialTests.monthly

    /// A date whose bits hold a newline and the byte 0xFE (which escaped the binary form's newlines).
    static let awkward = Date(timeIntervalSinceReferenceDate: Double(bitPattern: 0x41D0_0AFE_0A0A_FE0A))

    /// A store holding every field of a transaction and a renewal info, ids with spaces and
    /// newlines, many repeating strings, an older and a newer version, a renewal info with no
    /// renewal field, and a withheld subscription.
    static func richStore() -> FactStore {
        let full = StoreTransaction(
            transactionId: "2000000123456789", originalTransactionId: "o 1\n", webOrderLineItemId: "w\n%-",
            bundleId: bundle, productId: monthly, subscriptionGroupIdentifier: "21482456",
            purchaseDate: Date(timeIntervalSince1970: 1_767_225_600.125), originalPurchaseDate: awkward,
            expiresDate: Date(timeIntervalSince1970: 1_769_904_000.5), quantity: 10, type: .autoRenewable,
            appAccountToken: "7E3F1C2A-ÄÖ", inAppOwnershipType: .familyShared, signedDate: awkward,
            revocationReason: RevocationReason(rawValue: 10), revocationDate: Date(timeIntervalSince1970: 1_767_300_000),
            revocationType: RevocationType(rawValue: "REFUND_FULL"), isUpgraded: true, offerType: .introductory,
            offerIdentifier: "launch\noffer", offerDiscountType: .freeTrial, offerPeriod: "P1W", environment: .xcode, storefront: "CHE",
            storefrontId: "143459", transactionReason: TransactionReason(rawValue: "RENEWAL"), price: -(1 << 53), currency: "CHF")
        let minimal = StoreTransaction(
            transactionId: "m", originalTransactionId: "-", productId: "p", purchaseDate: Date(timeIntervalSince1970: 1_200_000_000),
            type: StoreProductType(rawValue: ""), inAppOwnershipType: OwnershipType(rawValue: "SOMETHING_NEW"))
        var store = FactStore()
        store.insert(.transaction(full))
        store.insert(.transaction(minimal))
        for index in 0..<40 {
            store.insert(
                .transaction(
                    StoreTransaction(
                        transactionId: "many-\(index)", originalTransactionId: "many-\(index % 7)", productId: "product-\(index % 3)",
                        purchaseDate: Date(timeIntervalSince1970: 1_767_225_600 + Double(index)), type: .nonConsumable,
                        environment: index.isMultiple(of: 3) ? .xcode : nil, storefront: "S\(index)", price: Int64(index) << 40,
                        currency: index.isMultiple(of: 2) ? "EUR" : nil)))
        }
        var newer = full
        newer.signedDate = Date(timeIntervalSince1970: 1_767_400_000)
        newer.offerType = OfferType(rawValue: 10)
        newer.offerDiscountType = .payAsYouGo
        store.insert(.transaction(newer))
        store.insert(
            .renewalInfo(
                RenewalInfo(
                    originalTransactionId: "o 1\n", autoRenewStatus: false, autoRenewProductId: "a\nb", productId: monthly,
                    isInBillingRetryPeriod: true, gracePeriodExpiresDate: awkward, expirationIntent: ExpirationIntent(rawValue: 10),
                    signedDate: Date(timeIntervalSince1970: 1_767_400_001), renewalDate: awkward, recentSubscriptionStartDate: awkward,
                    offerType: .introductory, offerIdentifier: "x", offerDiscountType: .payUpFront, environment: .xcode)))
        store.insert(.renewalInfo(RenewalInfo(originalTransactionId: "many-3")))
        store.withhold(transactionIds: ["many-5"], originalTransactionIds: [], everything: false, since: Date(timeIntervalSince1970: 1_767_500_000))
        // App transactions and grants, checkpointed as fact records: awkward text, absent fields.
        store.insert(
            .appTransaction(
                AppTransaction(
                    appTransactionId: "a 1\n", bundleId: bundle, originalApplicationVersion: "1.2 b%", originalPurchaseDate: awkward,
                    environment: .production, signedDate: awkward, isSigned: true)))
        store.insert(
            .appTransaction(
                AppTransaction(
                    appTransactionId: "-", bundleId: nil, originalApplicationVersion: nil, originalPurchaseDate: nil, environment: nil,
                    signedDate: nil, isSigned: false)))
        store.insert(
            .grant(
                EntitlementGrant(
                    grantId: "g 1\n", entitlement: "plus", expiresDate: awkward, revoked: true, reason: "support\n%", bundleId: bundle,
                    signedDate: awkward, keyId: "k-")))
        store.insert(
            .grant(
                EntitlementGrant(
                    grantId: "-", entitlement: "-", expiresDate: nil, revoked: false, reason: nil, bundleId: "-", signedDate: awkward, keyId: nil)))
        return store
    }

    /// A framed journal of `records`.
    static func framed(_ records: [JournalRecord], header: [UInt8] = JournalRecord.header) -> [UInt8] {
        var bytes = header
        for record in records { JournalRecord.append(record.kind, record.payload, to: &bytes) }
        return bytes
    }

    static func replay(_ bytes: [UInt8], catalog: Catalog) throws -> JournalReplay.Outcome {
        let scan = JournalScan(bytes)
        #expect(scan.damage.isEmpty && scan.tornTail == nil)
        return try JournalReplay.replay(scan.records, format: scan.format, path: "journal", catalog: catalog)
    }

    @Test("A checkpoint reads back every fact, field and summary exactly, and its records never hold a newline")
    func roundTrip() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        for compacted in [false, true] {
            var store = Self.richStore()
            if compacted { store.compact() }
            let records = JournalReplay.checkpoint(of: store)
            #expect(records.first?.kind == .checkpointStart && records.last?.kind == .summary)
            #expect(records.first.flatMap { JournalCheckpoint.count($0.payload) } == records.count - 1)
            #expect(records.filter { $0.kind == .fact }.count == store.transactionCount + 2 + store.appTransactions.count + store.grants.count)
            #expect(records.allSatisfy { !$0.payload.contains(0x0A) })
            let outcome = try Self.replay(Self.framed(records), catalog: catalog)
            #expect(outcome.unread.isEmpty)
            #expect(outcome.facts == store)
            #expect(outcome.facts.summary == store.summary)
            #expect(outcome.facts.withheldOriginalTransactionIds == ["many-5"])
            for id in ["2000000123456789", "", "many-0", "many-39"] { #expect(outcome.facts.transaction(id: id) == store.transaction(id: id)) }
        }
    }

    @Test("Any damaged byte of a checkpoint is found by the framing, at the record it is in")
    func everyDamagedByteIsFound() throws {
        var store = Self.richStore()
        store.compact()
        let bytes = Self.framed(JournalReplay.checkpoint(of: store))
        let intact = JournalScan(bytes).records
        for offset in JournalRecord.header.count..<bytes.count {
            for mask: UInt8 in [0x01, 0x80] {
                var damaged = bytes
                damaged[offset] ^= mask
                let scan = JournalScan(damaged)
                let found = !scan.damage.isEmpty || scan.tornTail != nil
                if !found {
                    Issue.record("byte \(offset) ^ \(mask) went unnoticed (\(scan.records.count) records of \(intact.count))")
                    return
                }
            }
        }
    }

    @Test("A journal of several decoding windows replays in journal order, and names the record that does not decode")
    func replayAcrossDecodingWindows() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        let window = ReplayDecoder.windowSize
        // Each id gets a version in the first window and a newer one two windows on; replayed
        // out of order, the older would be the one held.
        let ids = window + window / 2
        let date = Date(timeIntervalSince1970: 1_767_225_600)
        func version(_ id: Int, newer: Bool) -> StoreEvent {
            .transaction(
                StoreTransaction(
                    transactionId: "t-\(id)", originalTransactionId: "s-\(id % 97)", bundleId: Self.bundle, productId: Self.monthly,
                    purchaseDate: date, expiresDate: date.addingTimeInterval(newer ? 60 * 86_400 : 30 * 86_400), type: .autoRenewable,
                    signedDate: date.addingTimeInterval(newer ? 60 : 0), environment: .xcode))
        }
        let events = (0..<ids).map { version($0, newer: false) } + (0..<ids).map { version($0, newer: true) }
        var records = [JournalRecord(kind: .checkpointStart, payload: JournalCheckpoint.payload(count: events.count), index: 0, offset: 0)]
        for (position, event) in events.enumerated() {
            records.append(JournalRecord(kind: .fact, payload: Array(event.factRepresentation.serialized.utf8), index: position + 1, offset: 0))
        }
        let outcome = try Self.replay(Self.framed(records), catalog: catalog)
        #expect(outcome.facts == FactStore(events))
        #expect(outcome.facts.transaction(id: "t-\(ids - 1)")?.signedDate == date.addingTimeInterval(60))
        #expect(outcome.replayed == events.count)

        // A record in the third window that is well framed but does not decode is the one named.
        let broken = 2 * window + 17
        records[broken] = JournalRecord(kind: .fact, payload: Array(#"{"transactionId":"#.utf8), index: broken, offset: 0)
        #expect {
            _ = try Self.replay(Self.framed(records), catalog: catalog)
        } throws: { error in
            "\(error)".contains("record \(broken) ") && "\(error)".contains("unreadable fact record")
        }
    }

    @Test("A well-framed but malformed checkpoint payload is refused as unreadable, never a crash", arguments: 1...4)
    func malformedPayloadsAreRefused(seed: UInt64) throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        let records = JournalReplay.checkpoint(of: Self.richStore())
        var random = SplitMix(seed: seed)
        var refusals = 0
        for _ in 0..<400 {
            let target = random.next(in: 1...(records.count - 2))  // not the start or the summary
            var payload = Array(records[target].payload)
            switch random.next(in: 0...3) {
            case 0: payload = Array(payload.prefix(random.next(in: 0...max(0, payload.count - 1))))
            case 1: payload[random.next(in: 0...(payload.count - 1))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 2: payload.insert(UInt8(truncatingIfNeeded: random.next()), at: random.next(in: 0...payload.count))
            default: payload += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
            }
            payload.removeAll { $0 == 0x0A }
            var mutated = records
            mutated[target] = JournalRecord(kind: records[target].kind, payload: payload, index: target, offset: 0)
            do {
                _ = try Self.replay(Self.framed(mutated), catalog: catalog)
            } catch {
                #expect("\(error)".contains("unreadable"), "\(error)")
                refusals += 1
            }
        }
        #expect(refusals > 100)
    }

    @Test("A checkpoint fact of another app or environment is kept, and grants nothing under this catalog")
    func checkpointFactsOfAnotherOriginAreKept() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        var store = FactStore()
        let date = Date(timeIntervalSince1970: 1_767_225_600)
        let origins = [("ok", Self.bundle, StoreEnvironment.xcode), ("foreign", "com.example.other", .xcode), ("sandbox", Self.bundle, .sandbox)]
        for (days, (id, bundle, environment)) in zip([30.0, 60, 90], origins) {
            store.insert(
                .transaction(
                    StoreTransaction(
                        transactionId: id, originalTransactionId: id, bundleId: bundle, productId: Self.monthly, purchaseDate: date,
                        expiresDate: date.addingTimeInterval(days * 86_400), type: .autoRenewable, signedDate: date, environment: environment)))
        }
        store.insert(.renewalInfo(RenewalInfo(originalTransactionId: "ok", signedDate: date, environment: .production)))
        let records = JournalReplay.checkpoint(of: store)
        let outcome = try Self.replay(Self.framed(records), catalog: catalog)
        #expect(outcome.facts == store, "every fact is kept, whatever the catalog says of its origin")
        // Only "ok" (this app, Xcode) counts under the catalog, only "sandbox" under a Sandbox one,
        // and the renewal info (Production) under neither.
        let underXcode = EntitlementEngine(catalog: catalog).evaluate(outcome.facts, now: date).entitlements["plus"]
        #expect(underXcode?.expiresAt == date.addingTimeInterval(30 * 86_400) && underXcode?.willRenew == true)
        var sandbox = catalog
        sandbox.environments = [.sandbox]
        #expect(EntitlementEngine(catalog: sandbox).evaluate(outcome.facts, now: date).entitlements["plus"]?.expiresAt == date.addingTimeInterval(90 * 86_400))
        var production = catalog
        production.environments = [.production]
        #expect(EntitlementEngine(catalog: production).evaluate(outcome.facts, now: date).entitlements["plus"]?.active == false)
    }

    @Test("An event line the catalog's signature policy does not read is kept through a compaction, and read again under a catalog that reads it")
    func unreadLinesAreCarried() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        var strict = catalog
        strict.signatures = .required
        let line = #"{"transactionId":"u1","originalTransactionId":"u1","bundleId":"com.irenews.geko","productId":"com.irenews.geko.plus.lifetime","purchaseDate":1700000000000,"type":"Non-Consumable","environment":"Xcode"}"#
        let journal = JournalCheckpoint.beginningWithCheckpoint([JournalRecord(kind: .event, payload: Array(line.utf8), index: 0, offset: 0)])
        let strictly = try Self.replay(Self.framed(journal), catalog: strict)
        #expect(strictly.facts.transactionCount == 0 && strictly.unread == [line])
        // A compaction under the strict catalog carries the line as it is.
        let compacted = JournalReplay.checkpoint(of: strictly.facts, carrying: strictly.unread)
        #expect(try Self.replay(Self.framed(compacted), catalog: strict).unread == [line])
        let restored = try Self.replay(Self.framed(compacted), catalog: catalog)
        #expect(restored.unread.isEmpty && restored.facts.transaction(id: "u1") != nil)
    }

    @Test("A checkpoint in the text format still loads, and a daemon rewrites it with fact records")
    func textCheckpointLoadsAndIsRewritten() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        var store = Self.richStore()
        store.compact()
        var text: [JournalRecord] = []
        for event in store.checkpointEvents {
            switch event {
            case .transaction(let t): text.append(JournalRecord(kind: .transaction, payload: JournalFactCodec.payload(t), index: text.count, offset: 0))
            case .renewalInfo(let r): text.append(JournalRecord(kind: .renewalInfo, payload: JournalFactCodec.payload(r), index: text.count, offset: 0))
            case .appTransaction(let a):
                text.append(JournalRecord(kind: .checkpointAppTransaction, payload: JournalFactCodec.payload(a), index: text.count, offset: 0))
            case .grant(let g): text.append(JournalRecord(kind: .checkpointGrant, payload: JournalFactCodec.payload(g), index: text.count, offset: 0))
            }
        }
        text.append(JournalRecord(kind: .summary, payload: JournalSummary.payload(store.summary), index: text.count, offset: 0))
        #expect(try Self.replay(Self.framed(text, header: JournalRecord.headerVersion1), catalog: catalog).facts == store)

        try DaemonCoreTests.withCore { _, layout, log, makeCore in
            for directory in [layout.container, layout.container + "/Library", layout.brokerDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
            }
            try Data(Self.framed(text, header: JournalRecord.headerVersion1)).write(to: URL(fileURLWithPath: layout.journalPath))
            _ = try makeCore()
            #expect(log.all.contains { $0.hasPrefix("compacted the journal") })
            let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: layout.journalPath))))
            #expect(scan.version == 2 && scan.records.first?.kind == .checkpointStart && scan.records.dropFirst().first?.kind == .fact)
            #expect(!scan.records.contains { [.transaction, .renewalInfo, .checkpointAppTransaction, .checkpointGrant].contains($0.kind) })
            #expect(try Self.replay(Self.framed(scan.records), catalog: catalog).facts == store)
        }
    }

    @Test("A journal whose checkpoint is binary, as daemons wrote before fact records, replays to the same facts and is rewritten with fact records")
    func binaryCheckpointLoadsAndIsRewritten() throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        let journals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Journals")
        let binary = Array(try Data(contentsOf: journals.appendingPathComponent("binary-checkpoint.journal")))
        #expect(JournalScan(binary).records.contains { $0.kind == .checkpointTransaction })
        let lines = try String(contentsOf: journals.appendingPathComponent("binary-checkpoint-events.jsonl"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var expected = FactStore()
        for line in lines { expected.insert(contentsOf: try EventDecoder.decode(line: line.utf8, signatures: .optional)) }
        #expect(expected.transactionCount == 3)
        let replayed = try Self.replay(binary, catalog: catalog)
        #expect(replayed.facts == expected)
        #expect(replayed.facts.summary == expected.summary)

        try DaemonCoreTests.withCore { _, layout, log, makeCore in
            for directory in [layout.container, layout.container + "/Library", layout.brokerDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
            }
            try Data(binary).write(to: URL(fileURLWithPath: layout.journalPath))
            _ = try makeCore()
            #expect(log.all.contains { $0.hasPrefix("compacted the journal") })
            let scan = JournalScan(Array(try Data(contentsOf: URL(fileURLWithPath: layout.journalPath))))
            #expect(scan.records.filter { $0.kind == .fact }.count == 4)
            #expect(!scan.records.contains { [.checkpointNames, .checkpointTransaction, .checkpointRenewalInfo].contains($0.kind) })
            #expect(try Self.replay(Self.framed(scan.records), catalog: catalog).facts == expected)
        }
    }
}
