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
enum StoreKitConfiguration {
    static func products(from root: JSONCursor) throws(JSONPathError) -> [String: CatalogProduct] {
        try productsInOrder(from: root).products
    }

    /// The products, and their ids in the order the file writes them (its sections in document
    /// order, each section's items in order).
    static func productsInOrder(from root: JSONCursor) throws(JSONPathError) -> (products: [String: CatalogProduct], order: [String]) {
        var products: [String: CatalogProduct] = [:]
        var order: [String] = []
        func add(_ product: CatalogProduct, at cursor: JSONCursor) throws(JSONPathError) {
            guard !products.keys.contains(product.id) else { throw cursor.fail("duplicate productID '\(product.id)'") }
            var product = product
            product.localizations = try localizations(cursor)
            products[product.id] = product
            order.append(product.id)
        }

        for (section, _) in try root.entriesInDocumentOrder() {
            switch section {
            case "products", "nonRenewingSubscriptions": try plainProducts(root, section, add)
            case "subscriptionGroups": try subscriptions(root, add)
            default: continue
            }
        }
        return (products, order)
    }

    private static func localizations(_ item: JSONCursor) throws(JSONPathError) -> [ProductLocalization] {
        guard let list = try item.optional("localizations") else { return [] }
        var result: [ProductLocalization] = []
        for entry in try list.array() {
            result.append(
                ProductLocalization(
                    locale: try entry.optionalString("locale") ?? "", displayName: try entry.optionalString("displayName") ?? "",
                    description: try entry.optionalString("description") ?? ""))
        }
        return result
    }

    private static func plainProducts(
        _ root: JSONCursor, _ section: String, _ add: (CatalogProduct, JSONCursor) throws(JSONPathError) -> Void
    ) throws(JSONPathError) {
        guard let list = try root.optional(section) else { return }
        for item in try list.array() {
            let id = try productId(item)
            // The type's cursor, else the item's, names the place of an unknown type.
            let type: String, location: JSONCursor
            if let typeCursor = try item.optional("type") {
                type = try typeCursor.string()
                location = typeCursor
            } else {
                type = section == "products" ? "NonConsumable" : "NonRenewingSubscription"
                location = item
            }
            let kind: ProductKind
            switch type {
            case "Consumable": kind = .consumable
            case "NonConsumable": kind = .nonConsumable
            case "NonRenewingSubscription", "NonRenewable": kind = .nonRenewing(duration: nil)
            default:
                throw location.fail("unknown product type '\(type)'")
            }
            try add(
                CatalogProduct(
                    id: id, kind: kind, familyShareable: try item.optionalBool("familyShareable") ?? false,
                    referenceName: try item.optionalString("referenceName"), displayPrice: try item.optionalString("displayPrice")),
                item)
        }
    }

    private static func subscriptions(
        _ root: JSONCursor, _ add: (CatalogProduct, JSONCursor) throws(JSONPathError) -> Void
    ) throws(JSONPathError) {
        if let groups = try root.optional("subscriptionGroups") {
            for group in try groups.array() {
                let idValue = try group.optionalIdentifier("id")
                let nameValue = try group.optionalString("name")
                let groupId = idValue ?? nameValue ?? group.path
                for item in try group.required("subscriptions").array() {
                    let id = try productId(item)
                    let levelCursor = try item.required("groupNumber")
                    let level = try levelCursor.integer()
                    guard level >= 1 else { throw levelCursor.fail("must be 1 or more") }
                    var period: ISO8601Duration?
                    if let periodCursor = try item.optional("recurringSubscriptionPeriod") {
                        guard let parsed = ISO8601Duration(try periodCursor.string()) else {
                            throw periodCursor.fail("not an ISO 8601 duration")
                        }
                        period = parsed
                    }
                    var offer: IntroductoryOffer?
                    if let offerCursor = try item.optional("introductoryOffer") {
                        var offerPeriod: ISO8601Duration?
                        if let periodCursor = try offerCursor.optional("subscriptionPeriod") {
                            guard let parsed = ISO8601Duration(try periodCursor.string()) else {
                                throw periodCursor.fail("not an ISO 8601 duration")
                            }
                            offerPeriod = parsed
                        }
                        offer = IntroductoryOffer(
                            paymentMode: try offerCursor.required("paymentMode").string(), period: offerPeriod,
                            numberOfPeriods: try offerCursor.optionalInteger("numberOfPeriods"),
                            displayPrice: try offerCursor.optionalString("displayPrice"))
                    }
                    try add(
                        CatalogProduct(
                            id: id, kind: .autoRenewable(groupId: groupId, level: level),
                            familyShareable: try item.optionalBool("familyShareable") ?? false, subscriptionPeriod: period,
                            introductoryOffer: offer, referenceName: try item.optionalString("referenceName"),
                            displayPrice: try item.optionalString("displayPrice")),
                        item)
                }
            }
        }
    }

    private static func productId(_ item: JSONCursor) throws(JSONPathError) -> String {
        let cursor = try item.required("productID")
        let id = try cursor.string()
        guard !id.isEmpty else { throw cursor.fail("is empty") }
        return id
    }
}
