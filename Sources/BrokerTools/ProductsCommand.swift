import CLISupport
import EntitlementDefaults
import Entitlements
import StoreKitFormats
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
        .option("--feature", value: "name", "Only the products that unlock this feature.", .nonEmpty("a feature name")) { $0.feature = $1 },
        .option(
            "--locale", value: "locale", "The localization to use, as the .storekit file names it (e.g. en_US).",
            .nonEmpty("a locale such as en_US")) { $0.locale = $1 },
        .option(
            "--now", value: "ISO8601", "Evaluate ownership at this instant (never earlier than the snapshot's issue time).", .iso8601) { $0.now = $1 },
        OutputFormat.option { $0.format = $1 },
        .group { $0.common = $1 },
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
            StandardStreams.writeOut(products.map { offered in
                let product = offered.product, shown = ShownProduct(product)
                var line = "\(product.id): \(offered.displayName), \(product.displayPrice ?? "no price")"
                if let period = shown.period { line += " per \(period)" }
                if let offer = shown.introOffer {
                    line += ", intro offer \(offer.paymentMode) \(offer.periodCount)x\(offer.period?.description ?? "?")"
                    line += offered.introOfferEligible ? " (eligible)" : " (not eligible)"
                }
                if offered.owned { line += ", owned" }
                return line + "\n"
            }.joined())
        }
    }
}

/// How `entitlementctl products` spells a product's kind, period and introductory offer.
struct ShownProduct {
    var type: String
    var period: ISO8601Duration?
    var subscriptionGroup: String?
    var level: Int?
    /// The offer of an auto-renewable subscription; its `free` payment mode is spelt `freeTrial`.
    var introOffer: (paymentMode: String, period: ISO8601Duration?, periodCount: Int, displayPrice: String?)?

    init(_ product: CatalogProduct) {
        switch product.kind {
        case .autoRenewable(let group, let level):
            (type, period, subscriptionGroup, self.level) = ("autoRenewable", product.subscriptionPeriod, group, level)
            introOffer = product.introductoryOffer.map { offer in
                (offer.isFreeTrial ? "freeTrial" : offer.paymentMode, offer.period, offer.numberOfPeriods ?? 1, offer.displayPrice)
            }
        case .nonConsumable: type = "nonConsumable"
        case .consumable: type = "consumable"
        case .nonRenewing(let duration): (type, period) = ("nonRenewing", duration)
        }
    }
}

extension PaywallProduct {
    /// The object `entitlementctl products` prints.
    var json: JSONValue {
        let shown = ShownProduct(product)
        func text(_ value: (some CustomStringConvertible)?) -> JSONValue { value.map { .string($0.description) } ?? .null }
        return .object([
            "productId": .string(product.id), "type": .string(shown.type), "displayName": .string(displayName),
            "description": .string(description), "displayPrice": text(product.displayPrice),
            "period": text(shown.period), "subscriptionGroup": text(shown.subscriptionGroup),
            "level": shown.level.map { .int(Int64($0)) } ?? .null,
            "introOffer": shown.introOffer.map { offer in
                .object([
                    "paymentMode": .string(offer.paymentMode), "period": text(offer.period),
                    "periodCount": .int(Int64(offer.periodCount)), "displayPrice": text(offer.displayPrice),
                ])
            } ?? .null,
            "introOfferEligible": .bool(introOfferEligible), "owned": .bool(owned),
        ])
    }
}
