import Broker
import CLISupport
import EntitlementModel
import Foundation
import SharedDefaults

/// `entitlement-stress publish|read`: tight loops against the shared file, for the torn-read
/// tests and the torture harness. Not part of the public contract.
public struct StressCommand: Command {
    public static let configuration = CommandConfiguration(
        commandName: "entitlement-stress",
        abstract: "Publish or read snapshots in a tight loop and report what was seen (testing tool).",
        usage: "entitlement-stress publish|read --count <n> [--no-fsync] [--container <dir>] [--group <id>]",
        discussion: """
            publish: writes <n> snapshots with generations 1…n through SharedDefaults (each one atomic replace).
            read: reads until it has seen generation <n> (or 60 s pass) and prints one JSON line: \
            reads, decoded, refused, missing, backwards, lastGeneration. Exit 0 only if nothing was refused or went backwards.
            """,
        arguments: [.init("publish|read", "Which side of the loop to run.")],
        options: CommonOptions.help + [
            .init("--count <n>", "How many generations to publish, or the generation to read up to."),
            .init("--no-fsync", "Publish without fsync."),
        ])

    var common: CommonOptions
    var publish: Bool
    var count: Int64
    var durable: Bool

    public init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        count = try scanner.value("--count", as: "a positive whole number") { Int64($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1000
        durable = !scanner.flag("--no-fsync")
        let rest = try scanner.positionals()
        guard rest.count == 1, rest[0] == "publish" || rest[0] == "read" else { throw UsageError("Expected 'publish' or 'read'") }
        publish = rest[0] == "publish"
    }

    public func run() async throws {
        let layout = common.layout
        if publish {
            let store = SharedDefaults(suiteName: layout.group, container: layout.container, options: .init(durable: durable))
            let start = Date()
            for generation in 1...count {
                let status = EntitlementStatus(
                    active: generation % 2 == 0, state: generation % 2 == 0 ? .subscribed : .expired,
                    expiresAt: start.addingTimeInterval(3600), productId: "stress.\(generation)")
                let snapshot = EntitlementSnapshot(
                    generation: generation, issuedAt: start.addingTimeInterval(Double(generation) / 1000),
                    nextTransition: nil, entitlements: ["plus": status, "pad": status])
                do { try store.publish(snapshot) } catch { throw ToolError(.temporaryFailure, "\(error)") }
            }
            StandardStreams.writeOut("published \(count)\n")
            return
        }
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        var reads = 0, decoded = 0, refused = 0, missing = 0, backwards = 0
        var last: Int64 = 0
        var firstRefusal: String?
        let deadline = Date().addingTimeInterval(60)
        while last < count, Date() < deadline {
            reads += 1
            switch reader.refresh() {
            case .updated(let snapshot):
                decoded += 1
                if snapshot.generation < last { backwards += 1 }
                last = snapshot.generation
            case .unchanged: break
            case .missing: missing += 1
            case .rejected(let reason, _):
                refused += 1
                if firstRefusal == nil { firstRefusal = reason }
            }
        }
        let summary: JSONValue = .object([
            "reads": .int(Int64(reads)), "decoded": .int(Int64(decoded)), "refused": .int(Int64(refused)),
            "missing": .int(Int64(missing)), "backwards": .int(Int64(backwards)), "lastGeneration": .int(last),
            "firstRefusal": firstRefusal.map(JSONValue.string) ?? .null,
        ])
        StandardStreams.writeOut(summary.serialized + "\n")
        if refused > 0 || backwards > 0 || last < count { throw ExitCode(1) }
    }
}
