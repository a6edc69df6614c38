import CLISupport
import EntitlementDefaults
import EntitlementModel
import FoundationEssentials
import SystemShims
import ToolSupport

/// `entitlementctl products [--feature F] [--locale L] [--format json]`: what a paywall draws.
struct ProductsCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl products",
        abstract: "List the products a paywall offers, from the catalog's .storekit file.",
        discussion: """
            The JSON form is {"products": [...]}, each {"productId", "type", "displayName", "description", \
            "displayPrice", "period", "subscriptionGroup", "level", "introOffer", "introOfferEligible", "owned"}, \
            in the order of first appearance in the catalog's entitlements, then the file's other products in its \
            order. Texts come from the product's localizations in the given locale, else its first. Ownership and \
            offer eligibility come from the published snapshot (none published: nothing owned, no offer promised).
            """,
        options: [
            .init("--feature", value: "name", "Only the products that unlock this feature."),
            .init("--locale", value: "locale", "The localization to use, as the .storekit file names it (e.g. en_US)."),
            .init("--now", value: "ISO8601", "Evaluate ownership at this instant (never earlier than the snapshot's issue time)."),
            OutputFormat.option,
        ] + CommonOptions.options)

    var common: CommonOptions
    var feature: String?
    var locale: String?
    var now: Date?
    var format: OutputFormat

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        feature = try scanner.value("--feature", as: "a feature name") { $0.isEmpty ? nil : $0 }
        locale = try scanner.value("--locale", as: "a locale such as en_US") { $0.isEmpty ? nil : $0 }
        now = try scanner.value("--now", as: "an ISO 8601 date such as 2026-11-22T10:00:00Z", ISO8601.date(from:))
        format = try OutputFormat.parse(&scanner)
        let rest = try scanner.positionals()
        guard rest.isEmpty else { throw UsageError("unexpected argument '\(rest[0])' (use --feature to filter)") }
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        if let feature { try CheckCommand.requireKnown(feature, gate: catalog.featureGate, catalogPath: "\(common.catalogPath)") }
        let read = FeatureSnapshotRead(common, catalog: catalog, now: now)
        if let note = read.note ?? read.failed?.reason { StandardStreams.writeError("entitlementctl products: \(note)\n") }
        let products = catalog.paywallProducts(feature: feature, locale: locale, snapshot: read.snapshot, wallClock: read.clock)
        switch format {
        case .json: StandardStreams.writeOut(JSONValue.object(["products": .array(products.map(\.json))]).serialized + "\n")
        case .text:
            StandardStreams.writeOut(products.map { product in
                var line = "\(product.productId): \(product.displayName), \(product.displayPrice ?? "no price")"
                if let period = product.period { line += " per \(period)" }
                if let offer = product.introOffer {
                    line += ", intro offer \(offer.paymentMode) \(offer.periodCount)x\(offer.period ?? "?")"
                    line += product.introOfferEligible ? " (eligible)" : " (not eligible)"
                }
                if product.owned { line += ", owned" }
                return line + "\n"
            }.joined())
        }
    }
}
