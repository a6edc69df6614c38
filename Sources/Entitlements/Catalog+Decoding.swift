#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats
import Cryptography
import SignedData

extension Catalog {
    /// Decodes a catalog from the bytes of `Catalog.json` and of the `.storekit` file it names.
    /// Pure: no file is read (``load(path:bytes:)`` takes every file from a reader and calls this).
    ///
    /// - Parameters:
    ///   - catalogJSON: the bytes of `Catalog.json`.
    ///   - storeKitJSON: the bytes of the `.storekit` file the catalog names.
    ///   - catalogPath: how to name the catalog file in errors; the `.storekit` file is named by
    ///     its path resolved against this one's directory.
    ///   - trustedRootFiles: the contents of the certificate files `trustedRoots` names and of the
    ///     public key files `grantKeys` names, by path resolved against the catalog's directory;
    ///     a path missing from it is reported as a file that cannot be read.
    /// - Throws: ``CatalogError`` naming the file and key path of the first problem: invalid JSON,
    ///   a missing or mistyped key, an unknown environment, an entitlement or feature naming a
    ///   product or entitlement that does not exist, a non-renewing subscription without a duration,
    ///   a `signatures` value other than `required` or `optional`, a trusted root that is not a
    ///   certificate.
    public init(catalogJSON: [UInt8], storeKitJSON: [UInt8], catalogPath: String, trustedRootFiles: [String: [UInt8]] = [:]) throws(CatalogError) {
        try self.init(catalogRoot: Self.parse(catalogJSON, file: catalogPath), storeKitJSON: storeKitJSON, catalogPath: catalogPath, trustedRootFiles: trustedRootFiles)
    }

    /// The catalog from its parsed `Catalog.json` (`root`), so that ``load(path:bytes:)`` parses it once.
    init(catalogRoot root: JSONCursor, storeKitJSON: [UInt8], catalogPath: String, trustedRootFiles: [String: [UInt8]]) throws(CatalogError) {
        let storeKitPath = try Self.storeKitPath(in: root, catalogPath: catalogPath)
        let storeKitFile = Self.resolve(storeKitPath, relativeTo: catalogPath)
        let storeKitRoot = try Self.parse(storeKitJSON, file: storeKitFile)
        var (products, fileOrder) = try Self.decoding(storeKitFile) { () throws(JSONPathError) in
            try StoreKitConfiguration.productsInOrder(from: storeKitRoot)
        }
        self = try Self.decoding(catalogPath) { () throws(JSONPathError) in
            var catalog = try Self.decodeCatalog(root, storeKitPath: storeKitPath, storeKitFile: storeKitFile, products: &products)
            try catalog.decodePaywallKeys(root, fileOrder: fileOrder)
            catalog.signatures = try Self.decodeSignatures(
                root, environments: catalog.environments, catalogPath: catalogPath, files: trustedRootFiles)
            return catalog
        }
    }

    /// `body`'s result, its error named as a problem of `file`.
    static func decoding<T>(_ file: String, _ body: () throws(JSONPathError) -> T) throws(CatalogError) -> T {
        do { return try body() } catch { throw CatalogError(file: file, keyPath: error.path, problem: error.problem) }
    }

    /// The `storekit` path as the catalog writes it.
    static func storeKitPath(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> String {
        try decoding(catalogPath) { () throws(JSONPathError) in try root.required("storekit").nonEmptyString() }
    }

    /// The files a catalog names beside its `.storekit` file: the certificates of `trustedRoots`
    /// and the public keys of `grantKeys`, resolved against the catalog's directory, in order.
    static func namedFiles(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> [String] {
        try decoding(catalogPath) { () throws(JSONPathError) in
            let roots = try root.items(of: "trustedRoots").map { (item) throws(JSONPathError) in try item.string() }
            let keys = try root.entries(of: "grantKeys").map { (entry) throws(JSONPathError) in try entry.cursor.string() }
            return (roots + keys).map { resolve($0, relativeTo: catalogPath) }
        }
    }

    /// `path` as the catalog names it, resolved against the catalog's directory (an absolute
    /// path is returned unchanged).
    static func resolve(_ path: String, relativeTo catalogPath: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = catalogPath.lastIndex(of: "/") else { return path }
        return String(catalogPath[...slash]) + path
    }

    static func parse(_ bytes: [UInt8], file: String) throws(CatalogError) -> JSONCursor {
        let value: JSONInput
        do { value = try JSONInput.parse(bytes) } catch { throw CatalogError(file: file, keyPath: "", problem: error.description) }
        guard case .object = value else { throw CatalogError(file: file, keyPath: "", problem: "not a JSON object") }
        return JSONCursor(value)
    }

    private static func decodeCatalog(
        _ root: JSONCursor, storeKitPath: String, storeKitFile: String, products: inout [String: CatalogProduct]
    ) throws(JSONPathError) -> Catalog {
        let bundleId = try root.required("bundleId").nonEmptyString()
        let environments = try decodeEnvironments(try root.required("environment"))
        let appGroup = try root.optional("appGroup")?.string({ isValidAppGroup($0) ? $0 : nil }) {
            "'\($0)' is not an app-group id (letters, digits, '.', '-' and '_', no leading dot)"
        }

        for (productId, cursor) in try root.entries(of: "durations") {
            let duration = try cursor.duration()
            guard let product = products[productId] else { throw cursor.fail("product '\(productId)' is not in \(storeKitFile)") }
            guard case .nonRenewing = product.kind else { throw cursor.fail("product '\(productId)' is not a non-renewing subscription") }
            products[productId]?.kind = .nonRenewing(duration: duration)
        }

        var entitlements: [String: Set<String>] = [:]
        for (entitlement, cursor) in try root.required("entitlements").entries() {
            var granted: Set<String> = []
            for item in try cursor.required("products").array() {
                let productId = try item.string()
                guard let product = products[productId] else { throw item.fail("product '\(productId)' is not in \(storeKitFile)") }
                if case .nonRenewing(nil) = product.kind {
                    throw item.fail("non-renewing subscription '\(productId)' has no entry in durations")
                }
                granted.insert(productId)
            }
            entitlements[entitlement] = granted
        }

        var rules: [String: FeatureRule] = [:]
        for (feature, cursor) in try root.entries(of: "features") {
            rules[feature] = try decodeRule(cursor, entitlements: entitlements)
        }

        let policy = try root.optional("introductoryOffer")?.string(IntroductoryOfferPolicy.init(rawValue:)) {
            "'\($0)' is not newSubscribersOnly or oncePerGroup"
        }
        var catalog = Catalog(
            bundleId: bundleId, environments: environments, appGroup: appGroup, storeKitPath: storeKitPath, products: products,
            entitlements: entitlements, featureGate: FeatureGate(rules: rules), introductoryOfferPolicy: policy ?? .newSubscribersOnly)
        catalog.widgetFeature = try root.optional("widgetFeature")?.feature(in: rules) ?? catalog.widgetFeature
        catalog.watchFeature = try root.optional("watchFeature")?.feature(in: rules) ?? catalog.watchFeature
        catalog.legacyKeys = try decodeLegacyKeys(root, entitlements: entitlements)
        catalog.preferences = try decodePreferences(root, rules: rules, legacyKeys: catalog.legacyKeys)
        catalog.renewalLeeway = try root.optional("renewalLeeway")?.nonZeroDuration(else: "is zero (leave the key out for no leeway)")
        catalog.paidAppGrant = try decodePaidAppGrant(root, entitlements: entitlements)
        if let limit = try root.optional("companionOfflineLimit")?.nonZeroDuration(else: "is zero (the watch would never trust its snapshot)") {
            catalog.companionOfflineLimit = limit
        }
        return catalog
    }

    /// `paidAppGrant`: `{"entitlement": ID, "beforeVersion": "2.0", "beforeDate": ISO8601}`, at
    /// least one of the two bounds.
    private static func decodePaidAppGrant(_ root: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> PaidAppGrant? {
        guard let cursor = try root.optional("paidAppGrant") else { return nil }
        _ = try cursor.object()
        let entitlement = try cursor.required("entitlement").entitlement(in: entitlements)
        let beforeVersion = try cursor.optional("beforeVersion")?.string(PaidAppGrant.version) { "'\($0)' is not a dotted version of numbers (2.0)" }
        let beforeDate = try cursor.optional("beforeDate")?.string(ISO8601.date(from:)) { "'\($0)' is not an ISO 8601 date and time" }
        guard beforeVersion != nil || beforeDate != nil else { throw cursor.fail("names neither beforeVersion nor beforeDate") }
        return PaidAppGrant(entitlement: entitlement, beforeVersion: beforeVersion, beforeDate: beforeDate)
    }

    /// `legacyKeys`: suite key -> entitlement id; a key may not be the snapshot's own.
    private static func decodeLegacyKeys(_ root: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> [String: String] {
        var keys: [String: String] = [:]
        for (key, item) in try root.entries(of: "legacyKeys") {
            guard !key.isEmpty, key != EntitlementSnapshot.defaultsKey else {
                throw item.fail("'\(key)' cannot be a legacy key (the snapshot's key, or empty)")
            }
            keys[key] = try item.entitlement(in: entitlements)
        }
        return keys
    }

    /// `preferences`: suite key -> `{"feature": F, "default": bool}` (`default` false when left
    /// out). The key may be neither the snapshot's nor a legacy key (each publish rewrites those),
    /// and `features` must define F.
    private static func decodePreferences(
        _ root: JSONCursor, rules: [String: FeatureRule], legacyKeys: [String: String]
    ) throws(JSONPathError) -> [String: PreferenceDeclaration] {
        var preferences: [String: PreferenceDeclaration] = [:]
        for (key, item) in try root.entries(of: "preferences") {
            guard !key.isEmpty, key != EntitlementSnapshot.defaultsKey, legacyKeys[key] == nil else {
                throw item.fail("'\(key)' cannot be a preference key (the snapshot's key, a legacy key, or empty)")
            }
            for (member, value) in try item.entries() where member != "feature" && member != "default" {
                throw value.fail("unknown key (a preference has feature and default)")
            }
            preferences[key] = PreferenceDeclaration(
                feature: try item.required("feature").feature(in: rules), defaultValue: try item.optionalBool("default") ?? false)
        }
        return preferences
    }

    /// `environment`: one name, or a non-empty list of distinct names, each a known environment.
    private static func decodeEnvironments(_ cursor: JSONCursor) throws(JSONPathError) -> [StoreEnvironment] {
        let items: [JSONCursor]
        switch cursor.value {
        case .string: items = [cursor]
        case .array: items = Array(try cursor.array())
        default: throw cursor.fail("not a string or a list of strings")
        }
        var environments: [StoreEnvironment] = []
        for item in items {
            let environment = StoreEnvironment(rawValue: try item.string())
            guard StoreEnvironment.known.contains(environment) else {
                throw item.fail("'\(environment.rawValue)' is not Production, Sandbox, Xcode or LocalTesting")
            }
            guard !environments.contains(environment) else { throw item.fail("'\(environment.rawValue)' is named twice") }
            environments.append(environment)
        }
        guard !environments.isEmpty else { throw cursor.fail("is an empty list") }
        return environments
    }

    /// The paywall's keys that read the whole catalog: the products' order (first appearance
    /// in `entitlements`, then the rest in `fileOrder`), `attributionWindow`, `paywallCooldown`
    /// (each rule without a cooldown of its own takes it) and the subscription groups whose
    /// introductory offers each feature's products carry.
    private mutating func decodePaywallKeys(_ root: JSONCursor, fileOrder: [String]) throws(JSONPathError) {
        var order: [String] = []
        var listed: Set<String> = []
        for (_, cursor) in try root.required("entitlements").entriesInDocumentOrder() {
            for item in try cursor.required("products").array() {
                let id = try item.string()
                if listed.insert(id).inserted { order.append(id) }
            }
        }
        paywallProductOrder = order + fileOrder.filter { !listed.contains($0) }
        if let window = try root.optional("attributionWindow")?.duration() { attributionWindow = window }
        let defaultCooldown = try root.optional("paywallCooldown")?.duration()
        let introOfferGroups = entitlements.mapValues { productIds in
            Set(productIds.compactMap { id -> String? in
                guard let product = products[id], case .autoRenewable(let group, _) = product.kind else { return nil }
                return product.introductoryOffer.map { _ in group }
            })
        }
        featureGate.rules = featureGate.rules.mapValues { rule in
            var rule = rule
            if rule.cooldown == nil { rule.cooldown = defaultCooldown }
            rule.introOfferGroups = rule.entitlement.flatMap { introOfferGroups[$0] } ?? []
            return rule
        }
    }

    private static func decodeSignatures(
        _ root: JSONCursor, environments: [StoreEnvironment], catalogPath: String, files: [String: [UInt8]]
    ) throws(JSONPathError) -> SignaturePolicy {
        let requirement = try root.optional("signatures")?.string(SignaturePolicy.Requirement.init(rawValue:)) {
            "'\($0)' is not required or optional"
        }
        /// The file `item` names and its contents.
        func namedFile(_ item: JSONCursor) throws(JSONPathError) -> (name: String, contents: [UInt8]) {
            let file = resolve(try item.nonEmptyString(), relativeTo: catalogPath)
            guard let contents = files[file] else { throw item.fail("\(file): cannot be read") }
            return (file, contents)
        }
        var roots: [X509Certificate] = []
        for item in try root.items(of: "trustedRoots") {
            let file = try namedFile(item)
            do { roots.append(try X509Certificate(fileContents: file.contents)) } catch { throw item.fail("\(file.name): \(error.description)") }
        }
        var grantKeys: [String: ECDSAPublicKey] = [:]
        for (keyId, item) in try root.entries(of: "grantKeys") {
            guard !keyId.isEmpty else { throw item.fail("a key id is empty") }
            let file = try namedFile(item)
            let key: ECDSAPublicKey
            do { key = try ECDSAPublicKey(publicKeyFile: file.contents) } catch { throw item.fail("\(file.name): public key: \(error.problem)") }
            guard key.curve == .p256 else { throw item.fail("\(file.name): not a P-256 key (grants are ES256)") }
            grantKeys[keyId] = key.prepared(.manySignatures)
        }
        return SignaturePolicy(
            requirement: requirement ?? SignaturePolicy.defaultRequirement(for: environments), trustedRoots: roots, grantKeys: grantKeys)
    }

    private static func decodeRule(_ cursor: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> FeatureRule {
        _ = try cursor.object()
        let entitlement = try cursor.optional("entitlement")?.entitlement(in: entitlements)
        var freeCount: Int?, freeDays: Int?
        if let limit = try cursor.optional("freeLimit") {
            _ = try limit.object()
            freeCount = try limit.optional("count")?.allowance()
            freeDays = try limit.optional("days")?.allowance()
        }
        guard let paywall = try cursor.optional("paywall") else {
            return FeatureRule(entitlement: entitlement, freeCount: freeCount, freeDays: freeDays, paywall: FeatureGate.fallbackCopy)
        }
        let copy = PaywallCopy(
            title: try paywall.required("title").string(),
            message: try paywall.required("message").string(),
            callToAction: try paywall.optionalString("callToAction") ?? FeatureGate.fallbackCopy.callToAction)
        var byReason: [String: PaywallCopyOverride] = [:]
        for (reason, override) in try paywall.entries(of: "byReason") {
            guard reason == FeatureRule.introOfferCopyKey || PaywallCopyOverride.reasons.contains(reason) else {
                throw override.fail("unknown reason (one of \(([FeatureRule.introOfferCopyKey] + PaywallCopyOverride.reasons).joined(separator: ", ")))")
            }
            _ = try override.object()
            byReason[reason] = PaywallCopyOverride(
                title: try override.optionalString("title"), message: try override.optionalString("message"),
                callToAction: try override.optionalString("callToAction"))
        }
        return FeatureRule(
            entitlement: entitlement, freeCount: freeCount, freeDays: freeDays, paywall: copy, copyByReason: byReason,
            cooldown: try paywall.optional("cooldown")?.duration())
    }
}

/// The catalog's own values: each reading names the key path of what it refuses.
extension JSONCursor {
    /// A duration other than zero; `zero` says why zero is refused.
    func nonZeroDuration(else zero: String) throws(JSONPathError) -> ISO8601Duration {
        let duration = try duration()
        guard duration != ISO8601Duration() else { throw fail(zero) }
        return duration
    }

    /// A free allowance: an integer, not negative.
    func allowance() throws(JSONPathError) -> Int {
        let value = try integer()
        guard value >= 0 else { throw fail("negative") }
        return value
    }

    /// The name of one of `entitlements`.
    func entitlement(in entitlements: [String: Set<String>]) throws(JSONPathError) -> String {
        try string({ entitlements.keys.contains($0) ? $0 : nil }) { "entitlement '\($0)' is not in entitlements" }
    }

    /// The name of one of `rules`' features.
    func feature(in rules: [String: FeatureRule]) throws(JSONPathError) -> String {
        try string({ rules.keys.contains($0) ? $0 : nil }) { "feature '\($0)' is not in features (\(rules.keys.sorted().joined(separator: ", ")))" }
    }
}
