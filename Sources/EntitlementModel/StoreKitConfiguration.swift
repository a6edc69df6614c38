/// Reads the products out of an Xcode StoreKit configuration file (`.storekit`, versions 1 to 5).
///
/// Keys used: `products[]` (`productID`, `type` `Consumable` / `NonConsumable` /
/// `NonRenewingSubscription`, `familyShareable`, `referenceName`, `displayPrice`),
/// `nonRenewingSubscriptions[]` (same keys), and `subscriptionGroups[]` (`id`, `name`,
/// `subscriptions[]` with `productID`, `groupNumber`, `recurringSubscriptionPeriod`,
/// `introductoryOffer` {`paymentMode`, `subscriptionPeriod`, `numberOfPeriods`, `displayPrice`},
/// `familyShareable`, `subscriptionGroupID`). Every other key (`settings`, `version`, offers,
/// localizations, internal IDs) is ignored, and each section may be absent.
enum StoreKitConfiguration {
    static func products(from root: JSONCursor) throws(JSONPathError) -> [String: CatalogProduct] {
        var products: [String: CatalogProduct] = [:]
        func add(_ product: CatalogProduct, at cursor: JSONCursor) throws(JSONPathError) {
            guard !products.keys.contains(product.id) else { throw cursor.fail("duplicate productID '\(product.id)'") }
            products[product.id] = product
        }

        for section in ["products", "nonRenewingSubscriptions"] {
            guard let list = try root.optional(section) else { continue }
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
                    at: item)
            }
        }

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
                        at: item)
                }
            }
        }
        return products
    }

    private static func productId(_ item: JSONCursor) throws(JSONPathError) -> String {
        let cursor = try item.required("productID")
        let id = try cursor.string()
        guard !id.isEmpty else { throw cursor.fail("is empty") }
        return id
    }
}
