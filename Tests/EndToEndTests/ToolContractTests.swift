import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Command-line contract of the tools without a daemon: help, usage errors, exit codes, evaluate.
@Suite("Tool contract", .timeLimit(.minutes(1)))
struct ToolContractTests {
    @Test("--help prints to stdout and exits 0", arguments: ["entitlementd", "entitlementctl", "widget-renderer", "entitlement-demo"])
    func help(tool: String) async throws {
        let result = try await BuiltTools.run(tool, ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(result.standardOutput.contains("USAGE: \(tool)"))
        #expect(result.standardError.isEmpty)
    }

    @Test("Usage errors exit 64 with one line and a hint naming the help of the command that failed", arguments: [
        ("entitlementd", ["--bogus"], "entitlementd: error: unknown option '--bogus'", "entitlementd"),
        ("entitlementd", ["--no-fsnyc"], "entitlementd: error: unknown option '--no-fsnyc'; did you mean '--no-fsync'?", "entitlementd"),
        ("entitlementctl", ["frobnicate"], "entitlementctl: error: unknown subcommand 'frobnicate' (one of: ingest, status, evaluate, check, features, products, paywall, preference, journal-repair, pair, companion)", "entitlementctl"),
        ("entitlementctl", ["stauts"], "entitlementctl: error: unknown subcommand 'stauts'; did you mean 'status'?", "entitlementctl"),
        ("entitlementctl", [], "entitlementctl: error: missing subcommand", "entitlementctl"),
        ("entitlementctl", ["help", "chekc"], "entitlementctl: error: unknown subcommand 'chekc'; did you mean 'check'?", "entitlementctl"),
        ("entitlementctl", ["check"], "entitlementctl: error: missing feature", "entitlementctl check"),
        ("entitlementctl", ["check", "--cuont", "2", "habits"], "entitlementctl: error: unknown option '--cuont'; did you mean '--count'?", "entitlementctl check"),
        ("entitlementctl", ["--cuont", "2", "check", "habits"], "entitlementctl: error: unknown option '--cuont'; did you mean '--count'?", "entitlementctl"),
        ("entitlementctl", ["check", "widget"], "entitlementctl: error: unknown feature 'widget'; did you mean 'widgets'?", "entitlementctl check"),
        ("entitlementctl", ["evaluate", "--now", "yesterday"], "entitlementctl: error: invalid value 'yesterday' for '--now'", "entitlementctl evaluate"),
        ("widget-renderer", ["--family", "systemHuge"], "widget-renderer: error: unknown family 'systemHuge'", "widget-renderer"),
        ("widget-renderer", ["--family", "systemSmal"], "widget-renderer: error: unknown family 'systemSmal'; did you mean 'systemSmall'?", "widget-renderer"),
        ("widget-renderer", ["--device", "watch", "--family", "systemSmall"], "widget-renderer: error: family 'systemSmall' is not available on watch", "widget-renderer"),
        ("widget-renderer", ["--family", "accessoryCorner"], "widget-renderer: error: family 'accessoryCorner' is not available on phone", "widget-renderer"),
        ("entitlement-demo", ["--trial-seconds", "0"], "entitlement-demo: error: invalid value '0' for '--trial-seconds'", "entitlement-demo"),
        ("entitlementctl", ["check", "habits", "--record=1"], "entitlementctl: error: '--record' takes no value", "entitlementctl check"),
        ("entitlementctl", ["--group", "g", "--", "check", "habits"], "entitlementctl: error: missing subcommand before '--'", "entitlementctl"),
        ("entitlementctl", ["ingest", "/nonexistent/events.jsonl"], "entitlementctl: error: /nonexistent/events.jsonl: cannot open for reading", "entitlementctl ingest"),
    ])
    func usageErrors(tool: String, arguments: [String], expected: String, command: String) async throws {
        let result = try await BuiltTools.run(tool, arguments + ["--catalog", BuiltTools.defaultCatalog])
        #expect(result.status == 64)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map { $0.hasPrefix(expected) } == true, "stderr: \(result.standardError)")
        #expect(lines.count == 3 && lines[1] == "See '\(command) --help'." && lines[2].isEmpty, "stderr: \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("An unknown feature lists the features the catalog defines")
    func unknownFeatureListsKnownOnes() async throws {
        let result = try await BuiltTools.run("entitlementctl", ["check", "teleport", "--catalog", BuiltTools.defaultCatalog])
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown feature 'teleport' (\(BuiltTools.defaultCatalog) defines: "), "\(result.standardError)")
        #expect(!result.standardError.contains("did you mean"))
        for feature in ["habits", "widgets", "sync", "history"] { #expect(result.standardError.contains(feature)) }
    }

    @Test("--version prints one version, the same for every tool and subcommand")
    func version() async throws {
        let commands = [
            ["entitlementd", "--version"], ["entitlementctl", "--version"], ["entitlementctl", "status", "--version"],
            ["widget-renderer", "--version"], ["entitlement-demo", "--version"],
        ]
        var versions: Set<Substring> = []
        for command in commands {
            let result = try await BuiltTools.run(command[0], Array(command.dropFirst()))
            #expect(result.status == 0)
            #expect(result.standardError.isEmpty)
            let words = result.standardOutput.split(separator: " ")
            #expect(words.count == 2 && words[0] == command[0], "\(result.standardOutput)")
            #expect(words.last.map { $0.split(separator: ".").count == 3 && $0.hasSuffix("\n") } == true, "\(result.standardOutput)")
            if let version = words.last { versions.insert(version) }
        }
        #expect(versions.count == 1, "versions: \(versions.sorted())")
    }

    @Test("'help SUBCOMMAND', 'SUBCOMMAND --help' and '--help SUBCOMMAND' print the subcommand's help")
    func helpSubcommand() async throws {
        let forms = [["help", "ingest"], ["ingest", "--help"], ["--help", "ingest"], ["-h", "ingest"]]
        var outputs: [String] = []
        for form in forms {
            let result = try await BuiltTools.run("entitlementctl", form)
            #expect(result.status == 0, "\(form): \(result.standardError)")
            outputs.append(result.standardOutput)
        }
        #expect(outputs[0].contains("USAGE: entitlementctl ingest [<file>]"), "\(outputs[0])")
        #expect(Set(outputs).count == 1)
        let top = try await BuiltTools.run("entitlementctl", ["help"])
        #expect(top.status == 0 && top.standardOutput.contains("SUBCOMMANDS:"))
    }

    @Test("Options may stand before or after the subcommand")
    func optionsBeforeSubcommand() async throws {
        let root = NSTemporaryDirectory() + "options-order-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let common = ["--container", root, "--group", "group.order", "--catalog", BuiltTools.defaultCatalog]
        let after = try await BuiltTools.run("entitlementctl", ["check", "habits", "--count", "1"] + common)
        let before = try await BuiltTools.run("entitlementctl", common + ["--count", "1", "check", "habits"])
        let joined = ["--container=\(root)", "--group=group.order", "--catalog=\(BuiltTools.defaultCatalog)"]
        let equals = try await BuiltTools.run("entitlementctl", joined + ["--count=1", "check", "habits"])
        for result in [after, before, equals] {
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "unlocked: habits (2 free remaining)\n")
        }
        let status = try await BuiltTools.run("entitlementctl", ["--container", root, "status"])
        #expect(status.status == 69)
        #expect(status.standardError.contains("\(root)/Library/Preferences/"), "\(status.standardError)")
    }

    @Test("evaluate runs the engine on Apple's Xcode sample transaction")
    func evaluateXcodeSample() async throws {
        let sample = """
            {"transactionId":"0","originalTransactionId":"0","webOrderLineItemId":"0","bundleId":"com.irenews.geko","productId":"com.irenews.geko.plus.monthly","subscriptionGroupIdentifier":"21409431","purchaseDate":1697679936049.7297,"originalPurchaseDate":1697679936049.7297,"expiresDate":1700358336049.7297,"quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":1697679936056.2922,"offerType":1,"environment":"Xcode","transactionReason":"PURCHASE","storefront":"USA","storefrontId":"143441","price":0,"currency":"USD","offerDiscountType":"FREE_TRIAL","someFutureField":{"x":1}}
            """
        let during = try await BuiltTools.run(
            "entitlementctl", ["evaluate", "--catalog", BuiltTools.defaultCatalog, "--now", "2023-11-01T00:00:00Z", "-"], input: sample)
        #expect(during.status == 0, "\(during.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(during.standardOutput.utf8)) as? [String: Any])
        let plus = try #require((object["entitlements"] as? [String: Any])?["plus"] as? [String: Any])
        #expect(plus["active"] as? Bool == true)
        #expect(plus["state"] as? String == "subscribed")
        #expect(plus["periodType"] as? String == "trial")
        #expect(plus["expiresAt"] as? String == "2023-11-19T01:45:36.049Z")
        #expect(object["generation"] as? Int == 0)

        let after = try await BuiltTools.run(
            "entitlementctl", ["evaluate", "--catalog", BuiltTools.defaultCatalog, "--now", "2023-11-20T00:00:00Z", "-"], input: sample)
        #expect(after.standardOutput.contains("\"active\":false"))
        #expect(after.standardOutput.contains("\"state\":\"expired\""))
    }

    @Test("Bad input exits 65 naming the file and line; nothing is queued", arguments: [
        ("{\"transactionId\": ", "line is not JSON"),
        ("{\"transactionId\":\"1\",\"originalTransactionId\":\"1\",\"productId\":\"com.irenews.geko.plus.lifetime\",\"purchaseDate\":1700000000000,\"signedDate\":1700000000000,\"type\":\"Non-Consumable\",\"environment\":\"Production\",\"bundleId\":\"com.irenews.geko\"}", "environment"),
        ("{\"transactionId\":\"1\",\"originalTransactionId\":\"1\",\"productId\":\"com.irenews.geko.plus.lifetime\",\"purchaseDate\":1700000000000,\"signedDate\":1700000000000,\"type\":\"Non-Consumable\",\"environment\":\"Xcode\",\"bundleId\":\"com.evil.app\"}", "bundleId"),
    ])
    func badInput(line: String, expected: String) async throws {
        let root = NSTemporaryDirectory() + "bad-input-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/events.jsonl"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(("\n" + line + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let result = try await BuiltTools.run(
            "entitlementctl", ["ingest", file, "--container", root + "/c", "--catalog", BuiltTools.defaultCatalog])
        #expect(result.status == 65)
        #expect(result.standardError.hasPrefix("entitlementctl: \(file):2: "), "\(result.standardError)")
        #expect(result.standardError.contains(expected), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        let inbox = (try? FileManager.default.contentsOfDirectory(atPath: root + "/c/Library/Broker/inbox")) ?? []
        #expect(inbox.isEmpty)
    }

    @Test("check fails closed without a snapshot")
    func checkFailsClosed() async throws {
        let root = NSTemporaryDirectory() + "check-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let common = ["--container", root, "--catalog", BuiltTools.defaultCatalog]
        let widgets = try await BuiltTools.run("entitlementctl", ["check", "widgets"] + common)
        #expect(widgets.status == 1)
        #expect(widgets.standardOutput.hasPrefix("locked: widgets: noSnapshot"))
        let freeAllowance = try await BuiltTools.run("entitlementctl", ["check", "habits", "--count", "2"] + common)
        #expect(freeAllowance.status == 0)
        #expect(freeAllowance.standardOutput == "unlocked: habits (1 free remaining)\n")
    }

    @Test("Two followers decode a file published in a tight loop by another process: no torn reads")
    func tornReads() async throws {
        try await withTemporaryDirectory { root in
            let group = "group.torn"
            let count = 1500
            try FileManager.default.createDirectory(atPath: root + "/Library/Preferences", withIntermediateDirectories: true)
            let followers = try (0..<2).map { _ in try KernelEdgeCaseTests.follower(container: root, group: group) }
            defer { for (child, _) in followers { child.send(SIGKILL) } }
            #expect(try await eventually { followers.allSatisfy { !$0.1.all.isEmpty } })
            // Without fsync: a torn read is about the rename, and 1,500 fsyncs on a busy disk take minutes.
            try await StressPublisher.publish(1...Int64(count), container: root, group: group, durable: false)
            for (child, lines) in followers {
                #expect(try await eventually(timeout: .seconds(30)) { KernelEdgeCaseTests.lastGeneration(lines) == count }, "\(child.standardError)")
                #expect(await child.stop() == 0)
                #expect(!child.standardError.contains("ignored"), "a follower refused a read: \(child.standardError.prefix(2000))")
            }
        }
    }

    /// Run in the C locale (as in many containers and services), so it also proves that every
    /// line the demo prints, its own and its children's, follows the locale's charset.
    @Test("The demo plays its whole script in the C locale, in ASCII, exits 0 and leaves nothing behind")
    func demo() async throws {
        let tmp = NSTemporaryDirectory() + "demo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let result = try await BuiltTools.run(
            "entitlement-demo", ["--trial-seconds", "2", "--catalog", BuiltTools.defaultCatalog],
            environment: ["TMPDIR": tmp, "LANG": "C", "LC_ALL": "C"], timeout: .seconds(60))
        // The demo's own error line first: the output before it is long.
        #expect(result.status == 0, "\(result.standardError)\n\(result.standardOutput)")
        #expect(result.standardOutput.contains("Done: every state reached the widget."))
        // The watch's own broker and its follower ran too, and ended cleanly.
        #expect(result.standardOutput.contains("watch  | watch app - 198x242 pt - generation "), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("daemon exited with status 0"))
        #expect(result.standardOutput.contains("watchd exited with status 0"))
        // The companion scenes, in order: the demo prints each only once it has seen it happen.
        let scenes = [
            "The watch shows unlocked (its generation",
            "The watch still shows unlocked (its generation",
            "The watch caught up and shows locked (its generation",
            "The phone shows unlocked (generation",
        ]
        let positions = scenes.map { result.standardOutput.range(of: $0)?.lowerBound }
        #expect(!positions.contains(nil), "scenes missing: \(zip(scenes, positions).filter { $0.1 == nil }.map(\.0))")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "scenes out of order")
        // The watch's follower drew the refund it caught up on, and the relay carried both ways.
        let watchLines = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("watch  |") }
        #expect(watchLines.contains { $0.contains("locked (revoked)") }, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("authenticated (we connected)"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("authenticated (it connected)"), "\(result.standardOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        let foreign = result.standardOutput.split(separator: "\n").filter { !$0.unicodeScalars.allSatisfy(\.isASCII) }
        #expect(foreign.isEmpty, "lines that are not ASCII: \(foreign)")
        #expect(result.standardOutput.contains("\n== 1. A free user"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("widget | +---------------+"), "\(result.standardOutput)")
    }
}

@Suite("Renderer charset", .timeLimit(.minutes(1)))
struct RendererCharsetTests {
    @Test("--ascii and a non-UTF-8 locale draw with ASCII only; a UTF-8 locale uses box drawing", arguments: [
        (["--ascii"], "C.UTF-8", true), ([], "C", true), ([], "POSIX", true), ([], "en_US.UTF-8", false),
    ])
    func charset(flags: [String], locale: String, expectASCII: Bool) async throws {
        let root = NSTemporaryDirectory() + "charset-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try await BuiltTools.run(
            "widget-renderer", ["--container", root, "--catalog", BuiltTools.defaultCatalog, "--family", "systemMedium"] + flags,
            environment: ["LANG": locale, "LC_ALL": locale])
        #expect(result.status == 0)
        #expect(result.standardOutput.unicodeScalars.allSatisfy(\.isASCII) == expectASCII, "\(result.standardOutput)")
        // The box stands on lines of its own: its top edge is a whole line, and no '?' stands in for a line break.
        let topEdge = (expectASCII ? "+" : "┌") + String(repeating: expectASCII ? "-" : "─", count: 34) + (expectASCII ? "+" : "┐")
        #expect(result.standardOutput.split(separator: "\n").contains { $0 == topEdge }, "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("?"), "\(result.standardOutput)")
    }
}
