import CLISupport
import Entitlements
import StoreKitFormats
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
            The JSON form is the snapshot: every entitlement, unmappedProducts (purchases no entitlement \
            of the catalog lists: kept, granting nothing until the catalog maps them) and introOfferIneligibleGroups \
            (subscription groups whose introductory offer the user may no longer take), plus preferences: \
            {KEY: {"value", "effectiveAtNextLaunch"}} for each of the catalog's preferences (the stored choice, else its \
            default; effective only when on and its feature is unlocked). \
            Exit 69 when nothing has been published yet, 65 when the shared file is refused (torn, foreign, symlinked, unknown schema). \
            The text form also shows each preference as this process resolved it at launch from the cached \
            snapshot, and introductory-offer eligibility per subscription group.
            """)

    static let options: [CommandOption<Self>] = [OutputFormat.option { $0.format = $1 }, .group { $0.common = $1 }]

    var common = CommonOptions()
    var format = OutputFormat.text

    nonisolated(nonsending) func run() async throws {
        // The launch mode is resolved once, as the process starts, before anything else.
        let launchClock = Date()
        let catalog: Result<Catalog, any Error> = Result { try CatalogLoading.load(common.catalog) }
        let layout = common.layout(for: try? catalog.get())
        let defaults = SharedDefaults(suiteName: layout.group, container: common.container, options: .readingTheDaemon)
        let launch = (try? catalog.get()).map { LaunchPreferences(defaults: defaults, catalog: $0, wallClock: launchClock) }

        switch SnapshotLoading.read(layout) {
        case .missing(let path):
            throw ToolError(.unavailable, "\(path): no snapshot published yet (container \(common.containerPath.origin); is entitlementd running?)")
        case .refused(let reason):
            throw ToolError(.dataError, reason)
        case .failed(let reason, let errno):
            throw ToolError(ExitCode(failedCall: errno), reason)
        case .snapshot(let snapshot):
            let preferences = (try? catalog.get()).map { Self.preferences($0, launch: launch, defaults: defaults) } ?? []
            switch format {
            case .json:
                var object = snapshot.json
                if case .object(var members) = object {
                    members["preferences"] = .object(Dictionary(uniqueKeysWithValues: preferences.map { ($0.key, $0.json) }))
                    object = .object(members)
                }
                StandardStreams.writeOut(object.serialized + "\n")
            case .text:
                var text = Self.text(snapshot, now: Date())
                switch catalog {
                case .success(let catalog):
                    text += preferences.map(\.line).joined()
                    text += Self.introductoryOfferLines(catalog: catalog, snapshot: snapshot)
                case .failure(let error):
                    text += "preferences: unknown (\(error))\n"
                }
                StandardStreams.writeOut(text)
            }
        }
    }

    /// One of the catalog's preferences as this process resolved it at launch.
    struct Preference {
        var key: String
        var declaration: PreferenceDeclaration
        var value: Bool
        var mode: LaunchMode

        /// `{"value": bool, "effectiveAtNextLaunch": bool}`.
        var json: JSONValue { .object(["value": .bool(value), "effectiveAtNextLaunch": .bool(mode.isOn)]) }

        /// `preference syncEnabled (sync): on; at next launch: off (needs premium: notEntitled)`.
        var line: String { "preference \(key) (\(declaration.feature)): \(value ? "on" : "off"); at next launch: \(mode)\n" }
    }

    /// The catalog's preferences in key order, each with its stored value and launch mode.
    static func preferences(_ catalog: Catalog, launch: LaunchPreferences?, defaults: SharedDefaults) -> [Preference] {
        catalog.preferences.sorted { $0.key < $1.key }.map { key, declaration in
            Preference(
                key: key, declaration: declaration, value: LaunchPreferences.value(key, in: defaults, catalog: catalog),
                mode: launch?.mode(key) ?? .off(.undeclared))
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
            switch status.ownership {
            case .purchased: break
            case .familyShared: line += ", family shared"
            case .paidApp: line += ", bought the paid app"
            case .granted: line += ", granted"
            }
            text += line + "\n"
        }
        if !snapshot.unmappedProducts.isEmpty {
            text += "  unmapped products (no entitlement lists them): \(snapshot.unmappedProducts.joined(separator: ", "))\n"
        }
        return text
    }

    /// One line per subscription group of the catalog, `introductory offer, group <id>:
    /// eligible|not eligible`, from the snapshot's `introOfferIneligibleGroups`.
    static func introductoryOfferLines(catalog: Catalog, snapshot: EntitlementSnapshot) -> String {
        var groups: Set<String> = []
        for product in catalog.products.values {
            if case .autoRenewable(let group, _) = product.kind { groups.insert(group) }
        }
        if groups.isEmpty { return "introductory offers: the catalog has no subscription groups\n" }
        return groups.sorted().map { group in
            "introductory offer, group \(group): \(catalog.featureGate.introOfferEligible(group: group, snapshot: snapshot) ? "eligible" : "not eligible")\n"
        }.joined()
    }
}
