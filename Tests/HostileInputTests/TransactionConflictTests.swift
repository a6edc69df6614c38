import Broker
import StoreKitFormats
import Foundation
import TestSupport
import Testing

/// One input naming a transaction twice with different immutable fields is refused; the App
/// Store's legitimate re-sends (a refund, a renewal re-sign, an exact duplicate) are not.
@Suite("Conflicting transaction ids", .timeLimit(.minutes(1)))
struct TransactionConflictTests {
    static func transaction(_ changes: [String: JSONValue] = [:], removing: [String] = []) -> String {
        var object: [String: JSONValue] = [
            "transactionId": "2000000001", "originalTransactionId": "2000000001", "productId": "com.irenews.geko.plus.monthly",
            "purchaseDate": .double(1_763_769_600_000), "expiresDate": .double(1_766_361_600_000),
            "signedDate": .double(1_763_769_600_000), "type": "Auto-Renewable Subscription", "environment": "Xcode",
            "bundleId": "com.irenews.geko",
        ]
        object.merge(changes) { $1 }
        for key in removing { object[key] = nil }
        return JSONValue.object(object).serialized
    }

    static func events(_ line: String) throws -> [StoreEvent] { try EventDecoder.decode(line: line.utf8, signatures: .optional) }

    @Test("A different product, purchase date, original or bundle is a conflict naming the field", arguments: [
        (["productId": "com.irenews.geko.plus.lifetime"], "productId"),
        (["purchaseDate": .double(1_763_000_000_000)], "purchaseDate"),
        (["originalTransactionId": "2000000777"], "originalTransactionId"),
        (["bundleId": "com.irenews.other"], "bundleId"),
    ] as [([String: JSONValue], String)])
    func conflict(changes: [String: JSONValue], field: String) throws {
        var conflicts = TransactionConflicts()
        try conflicts.check(try Self.events(Self.transaction()), line: 1)
        let second = try Self.events(Self.transaction(changes.merging(["signedDate": .double(1_763_769_700_000)]) { $1 }))
        #expect {
            try conflicts.check(second, line: 3)
        } throws: { error in
            "\(error)" == "transactionId '2000000001' conflicts with line 1: \(field) differs"
        }
    }

    @Test("Re-sends are not conflicts: exact duplicate, refund, newer signature, upgrade")
    func resends() throws {
        var conflicts = TransactionConflicts()
        try conflicts.check(try Self.events(Self.transaction()), line: 1)
        try conflicts.check(try Self.events(Self.transaction()), line: 2)
        try conflicts.check(try Self.events(Self.transaction(["revocationDate": .double(1_764_000_000_000), "signedDate": .double(1_764_000_000_000)])), line: 3)
        try conflicts.check(try Self.events(Self.transaction(["isUpgraded": true, "expiresDate": .double(1_765_000_000_000)])), line: 4)
    }

    @Test("ingest and evaluate refuse a conflicting file with 65, naming FILE:LINE, queueing nothing")
    func throughTheTools() async throws {
        try await withTemporaryDirectory { root in
            let file = root + "/events.jsonl"
            let lines = [Self.transaction(), Self.transaction(["productId": "com.irenews.geko.plus.lifetime", "signedDate": .double(1_763_769_700_000)], removing: ["expiresDate"])]
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
            let common = ["--container", root + "/c", "--catalog", BuiltTools.defaultCatalog]
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", file] + common)
            #expect(ingest.status == 65)
            #expect(ingest.standardError == "entitlementctl: \(file):2: transactionId '2000000001' conflicts with line 1: productId differs\n")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: root + "/c/Library/Broker/inbox")) ?? []).isEmpty)
            let evaluate = try await BuiltTools.run("entitlementctl", ["evaluate", "--now", "2025-11-23T00:00:00Z", file] + common)
            #expect(evaluate.status == 65)
            #expect(evaluate.standardError.hasPrefix("entitlementctl: \(file):2: transactionId '2000000001' conflicts"))
            #expect(evaluate.standardOutput.isEmpty)
        }
    }
}
