import Foundation
import TestSupport
import Testing

/// Every hostile events file and catalog through the real `entitlementctl`: exit 65, one line
/// naming the file (and for events the line), nothing queued, nothing crashed.
@Suite("Hostile events and catalogs", .serialized, .timeLimit(.minutes(1)))
struct EventAndCatalogCorpusTests {
    @Test("Events: ingest and evaluate exit 65 naming FILE:LINE; nothing queued", arguments: Corpus.eventFiles)
    func eventFile(name: String) async throws {
        try await Self.expectEventsRefused(Corpus.path("events", name))
    }

    @Test("Generated: a 16 MiB line and a line just over the 1 MiB line cap", arguments: [16 << 20, (1 << 20) + 1])
    func hugeLine(bytes: Int) async throws {
        try await withTemporaryDirectory { root in
            let file = root + "/huge-line.jsonl"
            let prefix = #"{"transactionId":"1","productId":""#, suffix = #"","purchaseDate":1763769600000}"#
            let padding = String(repeating: "a", count: bytes - prefix.utf8.count - suffix.utf8.count)
            try Data((prefix + padding + suffix + "\n").utf8).write(to: URL(fileURLWithPath: file))
            let (ingest, _) = try await Self.expectEventsRefused(file)
            #expect(ingest.contains("exceeds the 1048576-byte limit"), "\(ingest)")
        }
    }

    /// A notification's items are decoded with the line's top-level `bundleId` and `environment`
    /// as defaults, so each of `data`'s items asks the top-level object for them: with a large
    /// object searched key by key, 60,000 items beside 60,000 keys (a line under the 1 MiB cap)
    /// took minutes of one daemon's drain; looked up in key order, a fraction of a second. The
    /// tool's run limit is what fails the quadratic decode.
    @Test("Generated: many items beside a large top-level object decode in one pass")
    func manyItemsBesideLargeObject() async throws {
        try await withTemporaryDirectory { root in
            let file = root + "/wide-line.jsonl"
            let items = Array(repeating: "{}", count: 60_000).joined(separator: ",")
            let keys = (0..<60_000).map { #""k\#($0)":0"# }.joined(separator: ",")
            let line = #"{"data":[{"lastTransactions":["# + items + "]}]," + keys + "}\n"
            #expect(line.utf8.count < 1 << 20)
            try Data(line.utf8).write(to: URL(fileURLWithPath: file))
            let evaluate = try await BuiltTools.run(
                "entitlementctl", ["evaluate", "--now", "2026-01-01T00:00:00Z", file, "--container", root + "/c", "--catalog", BuiltTools.defaultCatalog])
            #expect(evaluate.status == 0, "evaluate exited \(evaluate.status): \(evaluate.standardError)")
            #expect(evaluate.standardOutput.contains(#""state":"notPurchased""#), "\(evaluate.standardOutput)")
        }
    }

    @discardableResult
    static func expectEventsRefused(_ file: String) async throws -> (ingest: String, evaluate: String) {
        try await withTemporaryDirectory("events") { root in
            let common = ["--container", root + "/c", "--catalog", BuiltTools.defaultCatalog]
            let ingest = try await BuiltTools.run("entitlementctl", ["ingest", file] + common)
            #expect(ingest.status == 65, "ingest exited \(ingest.status): \(ingest.standardError)")
            Self.expectOneLine(ingest.standardError, naming: file, withLine: true)
            let queued = (try? FileManager.default.contentsOfDirectory(atPath: root + "/c/Library/Broker/inbox")) ?? []
            #expect(queued.isEmpty, "queued: \(queued)")

            let evaluate = try await BuiltTools.run("entitlementctl", ["evaluate", "--now", "2026-01-01T00:00:00Z", file] + common)
            #expect(evaluate.status == 65, "evaluate exited \(evaluate.status): \(evaluate.standardError)")
            Self.expectOneLine(evaluate.standardError, naming: file, withLine: true)
            #expect(evaluate.standardOutput.isEmpty)
            return (ingest.standardError, evaluate.standardError)
        }
    }

    @Test("Catalogs: evaluate exits 65 naming the file and the key path", arguments: Corpus.catalogFiles)
    func catalogFile(name: String) async throws {
        let file = Corpus.path("catalogs", name)
        let result = try await BuiltTools.run("entitlementctl", ["evaluate", "--catalog", file, "--now", "2026-01-01T00:00:00Z", "/dev/null"])
        #expect(result.status == 65, "exited \(result.status): \(result.standardError)")
        // A problem in the .storekit file names that file; every other names the catalog.
        let named = [
            "storekit-path-does-not-exist.json": "no-such-file.storekit", "storekit-path-is-a-directory.json": "directory.storekit",
        ][name] ?? (name.hasPrefix("storekit-") && !name.hasPrefix("storekit-path-") ? "storekit/" : name)
        Self.expectOneLine(result.standardError, naming: named, withLine: false)
        #expect(result.standardOutput.isEmpty)
    }

    @Test("A catalog that does not exist is a usage error (64) in the usage shape: one line and the hint")
    func missingCatalog() async throws {
        let result = try await BuiltTools.run("entitlementctl", ["evaluate", "--catalog", "/nonexistent/Catalog.json", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.standardError == """
            entitlementctl: error: /nonexistent/Catalog.json: catalog not found (from --catalog)
            See 'entitlementctl evaluate --help'.

            """)
    }

    static func expectOneLine(_ text: String, naming file: String, withLine: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "expected one line: \(text)", sourceLocation: sourceLocation)
        #expect(text.hasPrefix("entitlementctl: "), "\(text)", sourceLocation: sourceLocation)
        #expect(text.contains(file), "does not name \(file): \(text)", sourceLocation: sourceLocation)
        if withLine {
            let rest = text.components(separatedBy: file + ":").dropFirst().first ?? ""
            #expect(rest.first?.isNumber == true, "no line number after \(file): \(text)", sourceLocation: sourceLocation)
        }
        #expect(!text.contains("Error: "), "catch-all error: \(text)", sourceLocation: sourceLocation)
    }
}
