/// Reads the products out of an Xcode StoreKit configuration file (`.storekit`, versions 1 to 5).
///
/// Keys used: `products[]` (`productID`, `type` `Consumable` / `NonConsumable` /
/// `NonRenewingSubscription`, `familyShareable`, `referenceName`, `displayPrice`),
/// `nonRenewingSubscriptions[]` (same keys), and `subscriptionGroups[]` (`id`, `name`,
/// `subscriptions[]` with `productID`, `groupNumber`, `recurringSubscriptionPeriod`,
/// `introductoryOffer` {`paymentMode`, `subscriptionPeriod`, `numberOfPeriods`, `displayPrice`},
/// `familyShareable`, `subscriptionGroupID`) and every product's `localizations[]` (`locale`,
/// `displayName`, `description`). Every other key (`settings`, `version`, offers, internal IDs)
/// is ignored, and each section may be absent.
package enum StoreKitConfiguration {
    /// The products, and their ids in the order the file writes them (its sections in document
    /// order, each section's items in order).
    package static func productsInOrder(from root: JSONCursor) throws(JSONPathError) -> (products: [String: CatalogProduct], order: [String]) {
        var products: [String: CatalogProduct] = [:]
        var order: [String] = []
        /// Adds the product `item` describes, of `kind`, with the keys every product may have.
        func add(_ item: JSONCursor, _ id: String, _ kind: ProductKind, period: ISO8601Duration? = nil, offer: IntroductoryOffer? = nil) throws(JSONPathError) {
            var product = CatalogProduct(
                id: id, kind: kind, familyShareable: try item.optionalBool("familyShareable") ?? false, subscriptionPeriod: period,
                introductoryOffer: offer, referenceName: try item.optionalString("referenceName"),
                displayPrice: try item.optionalString("displayPrice"))
            guard products[id] == nil else { throw item.fail("duplicate productID '\(id)'") }
            product.localizations = try item.items(of: "localizations").map { (entry) throws(JSONPathError) in
                ProductLocalization(
                    locale: try entry.optionalString("locale") ?? "", displayName: try entry.optionalString("displayName") ?? "",
                    description: try entry.optionalString("description") ?? "")
            }
            products[id] = product
            order.append(id)
        }

        for (section, _) in try root.entriesInDocumentOrder() {
            switch section {
            case "products", "nonRenewingSubscriptions":
                for item in try root.items(of: section) {
                    let id = try item.required("productID").nonEmptyString()
                    try add(item, id, try plainKind(item, section: section))
                }
            case "subscriptionGroups":
                for group in try root.items(of: section) {
                    let idValue = try group.optional("id")?.identifier()
                    let nameValue = try group.optionalString("name")
                    let groupId = idValue ?? nameValue ?? group.path
                    for item in try group.required("subscriptions").array() {
                        let id = try item.required("productID").nonEmptyString()
                        let levelCursor = try item.required("groupNumber")
                        let level = try levelCursor.integer()
                        guard level >= 1 else { throw levelCursor.fail("must be 1 or more") }
                        let period = try item.optional("recurringSubscriptionPeriod")?.duration()
                        try add(item, id, .autoRenewable(groupId: groupId, level: level), period: period, offer: try introductoryOffer(item))
                    }
                }
            default: continue
            }
        }
        return (products, order)
    }

    /// The kind of an item of `products` or `nonRenewingSubscriptions` (its `type`, else the section's).
    private static func plainKind(_ item: JSONCursor, section: String) throws(JSONPathError) -> ProductKind {
        // The type's cursor, else the item's, names the place of an unknown type.
        let typeCursor = try item.optional("type")
        switch try typeCursor?.string() ?? (section == "products" ? "NonConsumable" : "NonRenewingSubscription") {
        case "Consumable": return .consumable
        case "NonConsumable": return .nonConsumable
        case "NonRenewingSubscription", "NonRenewable": return .nonRenewing(duration: nil)
        case let type: throw (typeCursor ?? item).fail("unknown product type '\(type)'")
        }
    }

    private static func introductoryOffer(_ item: JSONCursor) throws(JSONPathError) -> IntroductoryOffer? {
        guard let offer = try item.optional("introductoryOffer") else { return nil }
        let period = try offer.optional("subscriptionPeriod")?.duration()
        return IntroductoryOffer(
            paymentMode: try offer.required("paymentMode").string(), period: period,
            numberOfPeriods: try offer.optional("numberOfPeriods")?.integer(), displayPrice: try offer.optionalString("displayPrice"))
    }
}
