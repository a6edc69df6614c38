import CLISupport
import EntitlementDefaults
import EntitlementModel
import FoundationEssentials
import SystemShims
import EntitlementTools

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
            """)

    static let options: [CommandOption<Self>] = [
        .option("--feature", value: "name", "Only the products that unlock this feature.", .nonEmpty("a feature name"), \.feature),
        .option(
            "--locale", value: "locale", "The localization to use, as the .storekit file names it (e.g. en_US).",
            .nonEmpty("a locale such as en_US"), \.locale),
        .option(
            "--now", value: "ISO8601", "Evaluate ownership at this instant (never earlier than the snapshot's issue time).", .iso8601, \.now),
        OutputFormat.option(\.format),
        .group(\.common),
    ]

    var common = CommonOptions()
    var feature: String?
    var locale: String?
    var now: Date?
    var format = OutputFormat.text

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
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
