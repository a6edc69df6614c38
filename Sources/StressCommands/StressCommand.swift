import Broker
import CLISupport
import EntitlementCommands
import EntitlementModel
import Foundation
import EntitlementDefaults
import SharedDefaults
import ToolSupport

/// `entitlement-stress`: tight loops and the crash-torture harness, for tests and for people who
/// want to see the broker survive abuse. Not part of the public contract.
public struct StressCommand: Command {
    public static let configuration = CommandConfiguration(
        commandName: "entitlement-stress",
        abstract: "Publish or read snapshots in tight loops, or run the crash-torture or fault harness (testing tool).",
        discussion: """
            publish: write --count snapshots (generations --start…) through SharedDefaults, each one atomic replace.
            read: read in a tight loop until generation --count is seen (or until SIGTERM with --until-stopped); print one \
            JSON line (reads, decoded, refused, missing, backwards, lastGeneration); exit 0 only if nothing was refused or went backwards.
            foundation-publish: the same as publish, but through Foundation's UserDefaults(suiteName:) (for contrast).
            torture: run the real daemon, ingest continuously, kill -9 it --kills times at random instants while --readers \
            processes decode the shared file; exit 0 only with zero torn reads and zero acknowledged events lost. \
            --writer foundation kills a Foundation UserDefaults writer instead.
            faults: run the real daemon through --rounds rounds that cycle a disk filled under it and freed (as root, on a \
            small tmpfs mounted in a temporary directory), its container removed (it must exit 75 within a second; a new \
            daemon takes over) and kill -9 with a restart; each round acknowledges one event and checks it is published; \
            exit 0 only with nothing unapplied or lost and no second writer.
            """,
        arguments: [.init("mode", "publish, read, foundation-publish, torture or faults.")],
        options: [
            .init("--count", value: "n", "Generations to publish, or the generation to read up to (default 1000)."),
            .init("--start", value: "n", "publish: the first generation (default 1)."),
            .init("--no-fsync", "Publish without fsync."),
            .init("--until-stopped", "read: keep reading until SIGTERM/SIGINT."),
            .init("--kills", value: "n", "torture: how many times to kill the writer (default 200)."),
            .init("--readers", value: "n", "torture: reader processes (default 4)."),
            .init("--writer", value: "kind", "torture: broker (default) or foundation."),
            .init("--seed", value: "n", "torture: random seed for the kill instants (default: random, printed)."),
            .init("--rounds", value: "n", "faults: how many fault rounds (default 30)."),
        ] + CommonOptions.options)

    enum Mode: String { case publish, read, foundationPublish = "foundation-publish", torture, faults }

    var common: CommonOptions
    var mode: Mode
    var count: Int64
    var start: Int64
    var durable: Bool
    var untilStopped: Bool
    var torture: TortureHarness.Options
    var faults: FaultHarness.Options

    public init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        count = try scanner.value("--count", as: "a positive whole number") { Int64($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1000
        start = try scanner.value("--start", as: "a positive whole number") { Int64($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1
        durable = !scanner.flag("--no-fsync")
        untilStopped = scanner.flag("--until-stopped")
        torture = TortureHarness.Options(
            kills: try scanner.value("--kills", as: "a positive whole number") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 200,
            readers: try scanner.value("--readers", as: "a whole number from 0 to 64") { Int($0).flatMap { (0...64).contains($0) ? $0 : nil } } ?? 4,
            writer: try scanner.value("--writer", as: "broker or foundation") { TortureHarness.Writer(rawValue: $0) } ?? .broker,
            seed: try scanner.value("--seed", as: "a whole number") { UInt64($0) } ?? UInt64.random(in: 0...UInt64(UInt32.max)))
        faults = FaultHarness.Options(
            rounds: try scanner.value("--rounds", as: "a positive whole number") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 30)
        let rest = try scanner.positionals()
        guard rest.count == 1, let mode = Mode(rawValue: rest[0]) else {
            throw UsageError("expected a mode: publish, read, foundation-publish, torture or faults")
        }
        self.mode = mode
    }

    public func run() async throws {
        let layout = common.layout
        switch mode {
        case .publish:
            try Self.publish(generations: start...(start + count - 1), layout: layout, durable: durable)
            StandardStreams.writeOut("published \(count)\n")
        case .foundationPublish:
            FoundationPublisher.run(count: count, suiteName: layout.group)
        case .read:
            let summary = await StressReader(layout: layout).run(upTo: untilStopped ? nil : count)
            StandardStreams.writeOut(summary.json.serialized + "\n")
            if summary.refused > 0 || summary.backwards > 0 || (!untilStopped && summary.lastGeneration < count) { throw ExitCode(1) }
        case .torture:
            let catalog = try CatalogLoading.load(common.catalog)
            let harness = TortureHarness(options: torture, catalogPath: common.catalogPath, catalog: catalog, group: layout.group)
            let report = try await harness.run()
            StandardStreams.writeOut(report.text + report.json.serialized + "\n")
            if !report.passed { throw ExitCode(1) }
        case .faults:
            let catalog = try CatalogLoading.load(common.catalog)
            let harness = FaultHarness(options: faults, catalogPath: common.catalogPath, catalog: catalog, group: layout.group)
            let report = try await harness.run()
            StandardStreams.writeOut(report.text + report.json.serialized + "\n")
            if !report.passed { throw ExitCode(1) }
        }
    }

    /// Publishes `generations` of a two-entitlement snapshot through SharedDefaults.
    static func publish(generations: ClosedRange<Int64>, layout: ContainerLayout, durable: Bool) throws(ToolError) {
        let store = SharedDefaults(suiteName: layout.group, container: layout.container, options: .init(durable: durable))
        let start = Date()
        for generation in generations {
            do { try store.publish(StressSnapshot.make(generation: generation, start: start)) } catch {
                throw ToolError(.temporaryFailure, "\(error)")
            }
        }
    }
}

/// The snapshot the stress writers publish: alternately unlocked and locked, so a torn read
/// that mixed two generations could not pass for either.
enum StressSnapshot {
    static func make(generation: Int64, start: Date) -> EntitlementSnapshot {
        let status = EntitlementStatus(
            active: generation % 2 == 0, state: generation % 2 == 0 ? .subscribed : .expired,
            expiresAt: start.addingTimeInterval(3600), productId: "stress.\(generation)")
        return EntitlementSnapshot(
            generation: generation, issuedAt: start.addingTimeInterval(Double(generation) / 1000),
            nextTransition: nil, entitlements: ["plus": status, "pad": status])
    }
}
