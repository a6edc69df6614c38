@testable import Broker
import Entitlements
import StoreKitFormats
import Foundation
import TestSupport
import Testing

/// A compacted journal evaluates exactly as the full history does: random histories of renewals,
/// upgrades, refunds, grace periods, billing retry, family sharing, trials and lifetime purchases
/// are fed to a store that is never compacted and to one that is compacted (in memory, and
/// through a checkpoint written as journal bytes and replayed) at random points; the engine gives
/// the same result for both at many instants.
@Suite("Compaction differential", .timeLimit(.minutes(2)))
struct CompactionDifferentialTests {
    static let catalogPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Shared/Catalog.json"
    static let monthly = "com.irenews.geko.plus.monthly"
    static let annual = "com.irenews.geko.plus.annual"
    static let lifetime = "com.irenews.geko.plus.lifetime"
    static let base = Date(timeIntervalSince1970: 1_767_225_600.123)  // 2026-01-01, with a fraction

    /// One user's history, in the order the App Store would send it (roughly by time, with
    /// some repeats and some late arrivals).
    static func history(subscriptions: Int, using random: inout SplitMix) -> [StoreEvent] {
        var timed: [(Date, StoreEvent)] = []
        var serial = 0
        func fraction() -> Double { Double(random.next(in: 0...999)) / 1000 }
        for subscription in 0..<subscriptions {
            let original = "o\(subscription)-\(random.next(in: 0...9999))"
            let family = random.next(in: 0...4) == 0
            if random.next(in: 0...6) == 0 {
                serial += 1
                let bought = base.addingTimeInterval(Double(random.next(in: 0...200)) * 86_400 + fraction())
                let purchase = StoreTransaction(
                    transactionId: "t\(serial)", originalTransactionId: original, bundleId: "com.irenews.geko", productId: lifetime,
                    purchaseDate: bought, type: .nonConsumable, inAppOwnershipType: family ? .familyShared : .purchased, signedDate: bought,
                    environment: .xcode)
                timed.append((bought, .transaction(purchase)))
                if random.next(in: 0...2) == 0 {
                    var refund = purchase
                    refund.signedDate = bought.addingTimeInterval(Double(random.next(in: 1...90)) * 86_400)
                    refund.revocationDate = refund.signedDate
                    timed.append((refund.signedDate!, .transaction(refund)))
                }
                continue
            }
            var product = random.next(in: 0...1) == 0 ? monthly : annual
            var start = base.addingTimeInterval(Double(random.next(in: 0...60)) * 86_400 + fraction())
            var issued: [StoreTransaction] = []
            for period in 0..<random.next(in: 1...40) {
                serial += 1
                let length = (product == monthly ? 30.0 : 365.0) * 86_400
                var transaction = StoreTransaction(
                    transactionId: "t\(serial)", originalTransactionId: original, bundleId: "com.irenews.geko", productId: product,
                    purchaseDate: start, expiresDate: start.addingTimeInterval(length), type: .autoRenewable,
                    inAppOwnershipType: family ? .familyShared : .purchased, signedDate: start.addingTimeInterval(fraction()),
                    environment: .xcode)
                if period == 0, random.next(in: 0...1) == 0 {
                    transaction.offerType = .introductory
                    transaction.offerDiscountType = random.next(in: 0...2) == 0 ? .payAsYouGo : .freeTrial
                    transaction.expiresDate = start.addingTimeInterval(7 * 86_400)
                }
                timed.append((transaction.signedDate!, .transaction(transaction)))
                issued.append(transaction)
                switch random.next(in: 0...9) {
                case 0:  // a refund of some earlier period, signed later
                    var refund = issued[random.next(in: 0...(issued.count - 1))]
                    let when = transaction.purchaseDate.addingTimeInterval(Double(random.next(in: 1...20)) * 86_400 + fraction())
                    refund.signedDate = when
                    refund.revocationDate = when
                    timed.append((when, .transaction(refund)))
                case 1 where product == monthly:  // an upgrade: the current period is marked, a new one starts
                    var upgraded = transaction
                    let when = start.addingTimeInterval(Double(random.next(in: 1...20)) * 86_400 + fraction())
                    upgraded.isUpgraded = true
                    upgraded.signedDate = when
                    timed.append((when, .transaction(upgraded)))
                    product = annual
                    start = when
                    continue
                case 2:  // billing trouble: grace or retry
                    let end = transaction.expiresDate ?? start
                    let info = RenewalInfo(
                        originalTransactionId: original, autoRenewStatus: true, autoRenewProductId: product,
                        isInBillingRetryPeriod: random.next(in: 0...1) == 0,
                        gracePeriodExpiresDate: random.next(in: 0...1) == 0 ? end.addingTimeInterval(16 * 86_400 + fraction()) : nil,
                        signedDate: end.addingTimeInterval(fraction()), environment: .xcode)
                    timed.append((end, .renewalInfo(info)))
                case 3:  // auto-renew turned off or on
                    let when = start.addingTimeInterval(Double(random.next(in: 1...25)) * 86_400 + fraction())
                    timed.append(
                        (when, .renewalInfo(RenewalInfo(originalTransactionId: original, autoRenewStatus: random.next(in: 0...1) == 0, signedDate: when))))
                case 4:  // a repeat of something already sent
                    timed.append(timed[random.next(in: 0...(timed.count - 1))])
                default:
                    break
                }
                start = transaction.expiresDate ?? start
                if random.next(in: 0...12) == 0 { break }  // lapsed
            }
        }
        // By time, with some events arriving late.
        timed.sort { $0.0 < $1.0 }
        for _ in 0..<(timed.count / 10) {
            let from = random.next(in: 0...(timed.count - 1))
            let to = min(timed.count - 1, from + random.next(in: 1...20))
            timed.swapAt(from, to)
        }
        return timed.map { storeKitDates($0.1) }
    }

    /// `date` as it comes out of StoreKit JSON: whole milliseconds, or eighths of one.
    static func storeKitDate(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 8000).rounded() / 8 / 1000)
    }

    /// `event` with every date as StoreKit JSON carries it (what the daemon ever holds).
    static func storeKitDates(_ event: StoreEvent) -> StoreEvent {
        switch event {
        case .transaction(var t):
            t.purchaseDate = storeKitDate(t.purchaseDate)
            t.expiresDate = t.expiresDate.map(storeKitDate)
            t.signedDate = t.signedDate.map(storeKitDate)
            t.revocationDate = t.revocationDate.map(storeKitDate)
            return .transaction(t)
        case .renewalInfo(var r):
            r.gracePeriodExpiresDate = r.gracePeriodExpiresDate.map(storeKitDate)
            r.signedDate = r.signedDate.map(storeKitDate)
            return .renewalInfo(r)
        case .appTransaction, .grant:
            return event
        }
    }

    /// `facts` written as a checkpoint, as bytes, then read and replayed as the daemon does.
    static func throughCheckpoint(_ facts: FactStore, catalog: Catalog) throws -> FactStore {
        var bytes = JournalRecord.header
        for record in JournalReplay.checkpoint(of: facts) { bytes += JournalRecord.encode(record.kind, record.payload) }
        let scan = JournalScan(bytes)
        #expect(scan.damage.isEmpty && scan.tornTail == nil)
        return try JournalReplay.replay(scan.records, format: scan.format, path: "checkpoint", catalog: catalog).facts
    }

    @Test("The compacted store evaluates to exactly the full history's snapshot at every instant tested", arguments: 1...12)
    func compactedEqualsFullHistory(seed: UInt64) throws {
        let catalog = try Catalog.load(path: Self.catalogPath)
        let engine = EntitlementEngine(catalog: catalog)
        var random = SplitMix(seed: seed)
        let events = Self.history(subscriptions: random.next(in: 1...12), using: &random)
        var full = FactStore()
        var compacted = FactStore()
        var compactions = 0
        var comparisons = 0
        for (index, event) in events.enumerated() {
            full.insert(event)
            compacted.insert(event)
            guard random.next(in: 0...9) == 0 || index == events.count - 1 else { continue }
            if random.next(in: 0...1) == 0 {
                compacted.compact()
            } else {
                compacted.compact()
                compacted = try Self.throughCheckpoint(compacted, catalog: catalog)
            }
            compactions += 1
            #expect(compacted.transactionCount <= Set(events.prefix(index + 1).compactMap { event -> String? in
                if case .transaction(let t) = event { t.originalTransactionId } else { nil }
            }).count)
            // Instants around every date in the history, and in between.
            for _ in 0..<40 {
                let now = Self.base.addingTimeInterval(Double(random.next(in: -5...900)) * 86_400 + Double(random.next(in: 0...86_399)))
                let floor = random.next(in: 0...4) == 0 ? now.addingTimeInterval(Double(random.next(in: 0...60)) * 86_400) : nil
                let expected = engine.evaluate(full, now: now, floor: floor)
                let actual = engine.evaluate(compacted, now: now, floor: floor)
                comparisons += 1
                if actual != expected {
                    Issue.record("seed \(seed), after event \(index), at \(now): compacted \(actual) != full history \(expected)")
                    return
                }
            }
        }
        #expect(compactions > 0 && comparisons > 0)
    }

    @Test("Compaction keeps one transaction per subscription, whatever the length of its history")
    func memoryDoesNotGrowWithHistory() throws {
        var facts = FactStore()
        var date = Self.base
        for serial in 0..<10_000 {
            let original = "o\(serial % 100)"
            facts.insert(
                .transaction(
                    StoreTransaction(
                        transactionId: "t\(serial)", originalTransactionId: original, productId: Self.monthly, purchaseDate: date,
                        expiresDate: date.addingTimeInterval(30 * 86_400), type: .autoRenewable, signedDate: date)))
            date = date.addingTimeInterval(60)
        }
        #expect(facts.transactionCount == 10_000)
        facts.compact()
        #expect(facts.transactionCount == 100)
        // The start, the 100 facts, the summary.
        #expect(JournalReplay.checkpoint(of: facts).count == 102)
        #expect(JournalReplay.checkpoint(of: facts).filter { $0.kind == .fact }.count == 100)
    }
}
