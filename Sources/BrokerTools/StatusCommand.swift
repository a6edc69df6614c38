import Broker
import CLISupport
import EntitlementModel
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import SystemShims
import EntitlementTools

/// `entitlementctl status [--format json|text]`.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl status",
        abstract: "Print the published snapshot.",
        discussion: """
            The JSON form is the snapshot: every entitlement, and unmappedProducts (purchases no entitlement \
            of the catalog lists: kept, granting nothing until the catalog maps them). \
            Exit 69 when nothing has been published yet, 65 when the shared file is refused (torn, foreign, symlinked, unknown schema). \
            The text form also shows this process's launch mode (the sync preference, resolved once at start from the cached \
            snapshot) and introductory-offer eligibility per subscription group, computed from the daemon's journal when the \
            container has one (the snapshot does not carry it).
            """)

    static let options: [CommandOption<Self>] = [OutputFormat.option(\.format), .group(\.common)]

    var common = CommonOptions()
    var format = OutputFormat.text

    nonisolated(nonsending) func run() async throws {
        // The launch mode is resolved once, as the process starts, before anything else.
        let launchClock = Date()
        let catalog: Result<Catalog, any Error> = Result { try CatalogLoading.load(common.catalog) }
        let layout = common.layout(for: try? catalog.get())
        let defaults = SharedDefaults(suiteName: layout.group, container: common.container, options: .readingTheDaemon)
        let launch = try? LaunchPreferences(defaults: defaults, gate: catalog.get().featureGate, wallClock: launchClock)
        let syncPreference = LaunchPreferences.syncPreference(in: defaults)

        switch SnapshotLoading.read(layout) {
        case .missing(let path):
            throw ToolError(.unavailable, "\(path): no snapshot published yet (container \(common.containerPath.origin); is entitlementd running?)")
        case .refused(let reason):
            throw ToolError(.dataError, reason)
        case .failed(let reason, let errno):
            throw ToolError(ExitCode(failedCall: errno), reason)
        case .snapshot(let snapshot):
            switch format {
            case .json: StandardStreams.writeOut(snapshot.json.serialized + "\n")
            case .text:
                var text = Self.text(snapshot, now: Date())
                switch catalog {
                case .success(let catalog):
                    text += Self.launchLine(launch?.mode, syncPreference: syncPreference)
                    text += Self.introductoryOfferLines(catalog: catalog, layout: layout)
                case .failure(let error):
                    text += "launch mode: unknown (\(error))\n"
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
            let activeNow = status.isActive(at: snapshot.effectiveNow(wallClock: now, boot: .current()))
            var line = "  \(id): \(activeNow ? "active" : "inactive"), \(status.state.rawValue)"
            if status.periodType != .normal { line += " (\(status.periodType.rawValue))" }
            if let product = status.productId { line += ", \(product)" }
            line += status.expiresAt.map { ", until \(ISO8601.string(from: $0))" } ?? (status.active ? ", no end" : "")
            if status.willRenew { line += ", renews" }
            if status.ownership == .familyShared { line += ", family shared" }
            text += line + "\n"
        }
        if !snapshot.unmappedProducts.isEmpty {
            text += "  unmapped products (no entitlement lists them): \(snapshot.unmappedProducts.joined(separator: ", "))\n"
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
        let scan: JournalScan
        do { scan = try JournalLines.read(path: layout.journalPath) } catch {
            return "introductory offers: unknown (\(error))\n"
        }
        let facts: FactStore
        do { facts = try JournalReplay.replay(scan.records, format: scan.format, path: layout.journalPath, catalog: catalog).facts } catch {
            return "introductory offers: unknown (\(error))\n"
        }
        let eligibility = EntitlementEngine(catalog: catalog).introductoryOfferEligibility(facts)
        if eligibility.isEmpty { return "introductory offers: the catalog has no subscription groups\n" }
        return eligibility.sorted { $0.key < $1.key }
            .map { "introductory offer, group \($0.key): \($0.value ? "eligible" : "not eligible")\n" }.joined()
    }
}

/// The daemon's journal, read without taking part in its writing: its intact records (a torn
/// last record, an append in progress, and damaged records are left out).
enum JournalLines {
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    static func read(path: String) throws(ReadError) -> JournalScan {
        let bytes: [UInt8]
        do throws(Errno) {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec])
            bytes = try descriptor.closeAfter { descriptor throws(Errno) in
                let status = try descriptor.fstat()
                guard status.type == .regular, status.userID == ProcessIdentity.effectiveUserID else { throw .permissionDenied }
                do throws(ReadAllError) { return try descriptor.readAll(limit: Int(Int32.max) << 16) } catch {
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
        return JournalScan(bytes)
    }
}
