import Foundation
import Testing
@testable import EntitlementModel

@Suite(.timeLimit(.minutes(1))) struct FactStoreTests {
    private typealias F = Fixtures

    @Test func replayIsIdempotent() throws {
        let events = try F.events([F.xcodeSample, F.renewal(original: "0", signed: "2023-10-19T02:00:00Z")])
        var store = FactStore()
        let changed1 = store.insert(events[0])
        #expect(changed1)
        let changed2 = store.insert(events[1])
        #expect(changed2)
        let before = store
        let changed3 = store.insert(events[0])
        #expect(!changed3)
        let changed4 = store.insert(events[1])
        #expect(!changed4)
        let changed5 = store.insert(contentsOf: events)
        #expect(!changed5)
        #expect(store == before)
        #expect(store.newestSignedDate == F.date("2023-10-19T02:00:00Z"))
    }

    @Test func newestSignedDateWinsPerTransaction() throws {
        let older = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")])[0]
        let newer = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z",
                                                signed: "2025-01-05T00:00:00Z", ["revocationDate": .double(F.ms("2025-01-05T00:00:00Z"))])])[0]
        let sameDateDifferent = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", expires: "2025-03-01T00:00:00Z",
                                                            signed: "2025-01-05T00:00:00Z")])[0]
        var store = FactStore([older])
        let changed6 = store.insert(newer)
        #expect(changed6)
        #expect(store.transactionsByID()["1"]?.revocationDate == F.date("2025-01-05T00:00:00Z"))
        let changed7 = store.insert(older)
        #expect(!changed7, "an older version never replaces a newer one")
        let changed8 = store.insert(sameDateDifferent)
        #expect(!changed8, "on a tie the existing version stays")
        #expect(store.transactionsByID()["1"]?.revocationDate != nil)
        #expect(store.newestSignedDate == F.date("2025-01-05T00:00:00Z"))
    }

    @Test func newestSignedDateWinsPerRenewalInfo() throws {
        let first = try F.events([F.renewal(original: "9", signed: "2025-01-01T00:00:00Z")])[0]
        let second = try F.events([F.renewal(original: "9", signed: "2025-01-02T00:00:00Z", ["autoRenewStatus": .int(0)])])[0]
        var store = FactStore([second])
        let changed9 = store.insert(first)
        #expect(!changed9)
        #expect(store.renewalInfosByOriginalID()["9"]?.autoRenewStatus == false)
        #expect(store.renewalInfosByOriginalID().count == 1)
    }

    @Test func versionWithoutSignedDateNeverReplaces() throws {
        let signed = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z")])[0]
        let unsigned = try F.events([F.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", ["signedDate": .null])])[0]
        var store = FactStore([signed])
        let changed10 = store.insert(unsigned)
        #expect(!changed10)
        var empty = FactStore()
        let changed11 = empty.insert(unsigned)
        #expect(changed11)
        #expect(empty.newestSignedDate == nil)
        let changed12 = empty.insert(signed)
        #expect(changed12, "a signed version replaces an unsigned one")
    }
}
