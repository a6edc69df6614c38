import Broker
import CLISupport
import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SharedDefaults
import SystemShims

/// `entitlementctl status [--format json|text]`.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl status",
        abstract: "Print the published snapshot.",
        discussion: """
            Exit 69 when nothing has been published yet, 65 when the shared file is refused (torn, foreign, symlinked, unknown schema). \
            The text form also shows this process's launch mode (the sync preference, resolved once at start from the cached \
            snapshot) and introductory-offer eligibility per subscription group, computed from the daemon's journal when the \
            container has one (the snapshot does not carry it).
            """,
        options: [OutputFormat.option] + CommonOptions.options)

    var common: CommonOptions
    var format: OutputFormat

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        format = try OutputFormat.parse(&scanner)
    }

    func run() async throws {
        // The launch mode is resolved once, as the process starts, before anything else.
        let launchClock = Date()
        let catalog: Result<Catalog, ToolError> = Result { () throws(ToolError) in try CatalogLoading.load(common.catalog) }
        let defaults = SharedDefaults(suiteName: common.group, container: common.container)
        let launch = try? LaunchPreferences(defaults: defaults, gate: catalog.get().featureGate, wallClock: launchClock)
        let syncPreference = LaunchPreferences.syncPreference(in: defaults)

        switch SnapshotLoading.read(common.layout) {
        case .missing(let path):
            throw ToolError(.unavailable, "\(path): no snapshot published yet (container \(common.containerPath.origin); is entitlementd running?)")
        case .refused(let reason):
            throw ToolError(.dataError, reason)
        case .snapshot(let snapshot):
            switch format {
            case .json: StandardStreams.writeOut(snapshot.json.serialized + "\n")
            case .text:
                var text = Self.text(snapshot, now: Date())
                switch catalog {
                case .success(let catalog):
                    text += Self.launchLine(launch?.mode, syncPreference: syncPreference)
                    text += Self.introductoryOfferLines(catalog: catalog, layout: common.layout)
                case .failure(let error):
                    text += "launch mode: unknown (\(error.message))\n"
                }
                StandardStreams.writeOut(text)
            }
        }
    }

    static func text(_ snapshot: EntitlementSnapshot, now: Date) -> String {
        var text = "generation \(snapshot.generation), issued \(ISO8601.string(from: snapshot.issuedAt))"
        if let next = snapshot.nextTransition { text += ", next transition \(ISO8601.string(from: next))" }
        text += "\n"
        for (id, status) in snapshot.entitlements.sorted(by: { $0.key < $1.key }) {
            let activeNow = status.isActive(at: snapshot.effectiveNow(wallClock: now))
            var line = "  \(id): \(activeNow ? "active" : "inactive"), \(status.state.rawValue)"
            if status.periodType != .normal { line += " (\(status.periodType.rawValue))" }
            if let product = status.productId { line += ", \(product)" }
            line += status.expiresAt.map { ", until \(ISO8601.string(from: $0))" } ?? (status.active ? ", no end" : "")
            if status.willRenew { line += ", renews" }
            if status.ownership == .familyShared { line += ", family shared" }
            text += line + "\n"
        }
        return text
    }

    /// `launch mode: sync on (sync preference on; resolved at launch, changes apply on next launch)`.
    static func launchLine(_ mode: LaunchMode?, syncPreference: Bool) -> String {
        let mode = mode.map(\.description) ?? "unknown"
        return "launch mode: \(mode) (sync preference \(syncPreference ? "on" : "off"); resolved at launch, changes apply on next launch)\n"
    }

    /// One line per subscription group: `introductory offer, group <id>: eligible|not eligible`,
    /// from the journal's facts under the catalog's policy; one `unknown` line when the container
    /// has no readable journal (a watch container, or no daemon ever ran).
    static func introductoryOfferLines(catalog: Catalog, layout: ContainerLayout) -> String {
        let lines: [String]
        do { lines = try JournalLines.read(path: layout.journalPath) } catch {
            return "introductory offers: unknown (\(error))\n"
        }
        var facts = FactStore()
        for line in lines {
            // A line the current catalog refuses is skipped, as the daemon's replay does.
            guard let events = try? EventLine.decode(line, catalog: catalog) else { continue }
            for event in events { facts.insert(event) }
        }
        let eligibility = EntitlementEngine(catalog: catalog).introductoryOfferEligibility(facts)
        if eligibility.isEmpty { return "introductory offers: the catalog has no subscription groups\n" }
        return eligibility.sorted { $0.key < $1.key }
            .map { "introductory offer, group \($0.key): \($0.value ? "eligible" : "not eligible")\n" }.joined()
    }
}

/// The complete lines of the daemon's journal, read without taking part in its writing: a torn
/// last line (an append in progress) is left out.
enum JournalLines {
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    static func read(path: String) throws(ReadError) -> [String] {
        let bytes: [UInt8]
        do throws(Errno) {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
            bytes = try descriptor.closeAfter { () throws(Errno) in
                let status = try descriptor.fstat()
                guard status.type == .regular, status.userID == ProcessIdentity.effectiveUserID else { throw .permissionDenied }
                do throws(ReadAllError) { return try descriptor.readAll(limit: Journal.maximumSize) } catch {
                    switch error {
                    case .system(let errno): throw errno
                    case .exceedsLimit: throw .fileTooLarge
                    }
                }
            }
        } catch {
            if error == .noSuchFileOrDirectory { throw ReadError(description: "\(path): no journal in this container") }
            throw ReadError(description: "\(path): \(error)")
        }
        guard let lastNewline = bytes.lastIndex(of: 0x0A) else { return [] }
        return String(decoding: bytes[...lastNewline], as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
