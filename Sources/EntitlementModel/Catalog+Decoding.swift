#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SignedData

extension Catalog {
    /// Decodes a catalog from the bytes of `Catalog.json` and of the `.storekit` file it names.
    /// Pure: no file is read (``load(path:contents:)`` takes both files from a reader and calls this).
    ///
    /// - Parameters:
    ///   - catalogJSON: the bytes of `Catalog.json`.
    ///   - storeKitJSON: the bytes of the `.storekit` file the catalog names.
    ///   - catalogPath: how to name the catalog file in errors; the `.storekit` file is named by
    ///     its path resolved against this one's directory.
    ///   - trustedRootFiles: the contents of the certificate files `trustedRoots` names and of the
    ///     public key files `grantKeys` names, by path resolved against the catalog's directory
    ///     (as `trustedRootPaths(catalogJSON:catalogPath:)` resolves them); a path missing from it
    ///     is reported as a file that cannot be read.
    /// - Throws: ``CatalogError`` naming the file and key path of the first problem: invalid JSON,
    ///   a missing or mistyped key, an unknown environment, an entitlement or feature naming a
    ///   product or entitlement that does not exist, a non-renewing subscription without a duration,
    ///   a `signatures` value other than `required` or `optional`, a trusted root that is not a
    ///   certificate.
    @_alwaysEmitIntoClient
    public init(catalogJSON: Data, storeKitJSON: Data, catalogPath: String, trustedRootFiles: [String: Data] = [:]) throws(CatalogError) {
        try self.init(
            catalogJSON: Array(catalogJSON), storeKitJSON: Array(storeKitJSON), catalogPath: catalogPath,
            trustedRootFiles: trustedRootFiles.mapValues { Array($0) })
    }

    /// The `Data` initializer above, from byte arrays: the form the tools read files in, so the
    /// catalog code itself uses no `Data`, whose part of FoundationEssentials a one-shot tool would
    /// otherwise link and relocate at every start.
    public init(catalogJSON: [UInt8], storeKitJSON: [UInt8], catalogPath: String, trustedRootFiles: [String: [UInt8]] = [:]) throws(CatalogError) {
        try self.init(catalogRoot: Self.parse(catalogJSON, file: catalogPath), storeKitJSON: storeKitJSON, catalogPath: catalogPath, trustedRootFiles: trustedRootFiles)
    }

    /// The catalog from its parsed `Catalog.json` (`root`), so that ``load(path:bytes:)`` parses it once.
    init(catalogRoot root: JSONCursor, storeKitJSON: [UInt8], catalogPath: String, trustedRootFiles: [String: [UInt8]]) throws(CatalogError) {
        let storeKitPath = try Self.storeKitPath(in: root, catalogPath: catalogPath)
        let storeKitFile = Self.resolve(storeKitPath, relativeTo: catalogPath)
        let storeKitRoot = try Self.parse(storeKitJSON, file: storeKitFile)
        var products: [String: CatalogProduct]
        var fileOrder: [String]
        do { (products, fileOrder) = try StoreKitConfiguration.productsInOrder(from: storeKitRoot) } catch {
            throw CatalogError(file: storeKitFile, keyPath: error.path, problem: error.problem)
        }
        do {
            self = try Self.decodeCatalog(root, storeKitPath: storeKitPath, storeKitFile: storeKitFile, products: &products)
            try decodePaywallKeys(root, fileOrder: fileOrder)
            signatures = try Self.decodeSignatures(root, environments: environments, catalogPath: catalogPath, files: trustedRootFiles)
        } catch {
            throw CatalogError(file: catalogPath, keyPath: error.path, problem: error.problem)
        }
    }

    /// The path of the `.storekit` file a catalog names, resolved against the catalog's directory
    /// (an absolute `storekit` value is returned unchanged). Pure string arithmetic.
    @_alwaysEmitIntoClient
    public static func storeKitPath(catalogJSON: Data, catalogPath: String) throws(CatalogError) -> String {
        try storeKitPath(catalogJSON: Array(catalogJSON), catalogPath: catalogPath)
    }

    /// The `Data` form above from a byte array.
    public static func storeKitPath(catalogJSON: [UInt8], catalogPath: String) throws(CatalogError) -> String {
        try resolvedStoreKitPath(in: parse(catalogJSON, file: catalogPath), catalogPath: catalogPath)
    }

    static func resolvedStoreKitPath(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> String {
        resolve(try storeKitPath(in: root, catalogPath: catalogPath), relativeTo: catalogPath)
    }

    /// The certificate files a catalog's `trustedRoots` names, resolved against the catalog's
    /// directory, in order (empty when the key is absent). Pure string arithmetic.
    @_alwaysEmitIntoClient
    public static func trustedRootPaths(catalogJSON: Data, catalogPath: String) throws(CatalogError) -> [String] {
        try trustedRootPaths(catalogJSON: Array(catalogJSON), catalogPath: catalogPath)
    }

    /// The `Data` form above from a byte array.
    public static func trustedRootPaths(catalogJSON: [UInt8], catalogPath: String) throws(CatalogError) -> [String] {
        try trustedRootPaths(in: parse(catalogJSON, file: catalogPath), catalogPath: catalogPath)
    }

    static func trustedRootPaths(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> [String] {
        do throws(JSONPathError) {
            guard let list = try root.optional("trustedRoots") else { return [] }
            return try list.array().map { (item) throws(JSONPathError) in resolve(try item.string(), relativeTo: catalogPath) }
        } catch { throw CatalogError(file: catalogPath, keyPath: error.path, problem: error.problem) }
    }

    /// The public key files a catalog's `grantKeys` names, resolved against the catalog's
    /// directory (empty when the key is absent). Pure string arithmetic.
    static func grantKeyPaths(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> [String] {
        do throws(JSONPathError) {
            guard let keys = try root.optional("grantKeys") else { return [] }
            return try keys.entries().map { (entry) throws(JSONPathError) in resolve(try entry.cursor.string(), relativeTo: catalogPath) }
        } catch { throw CatalogError(file: catalogPath, keyPath: error.path, problem: error.problem) }
    }

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

    private static func storeKitPath(in root: JSONCursor, catalogPath: String) throws(CatalogError) -> String {
        do throws(JSONPathError) {
            let cursor = try root.required("storekit")
            let path = try cursor.string()
            guard !path.isEmpty else { throw cursor.fail("is empty") }
            return path
        } catch { throw CatalogError(file: catalogPath, keyPath: error.path, problem: error.problem) }
    }

    private static func decodeCatalog(
        _ root: JSONCursor, storeKitPath: String, storeKitFile: String, products: inout [String: CatalogProduct]
    ) throws(JSONPathError) -> Catalog {
        let bundleCursor = try root.required("bundleId")
        let bundleId = try bundleCursor.string()
        guard !bundleId.isEmpty else { throw bundleCursor.fail("is empty") }

        let environments = try decodeEnvironments(try root.required("environment"))

        var appGroup: String?
        if let cursor = try root.optional("appGroup") {
            let group = try cursor.string()
            guard isValidAppGroup(group) else {
                throw cursor.fail("'\(group)' is not an app-group id (letters, digits, '.', '-' and '_', no leading dot)")
            }
            appGroup = group
        }

        if let durations = try root.optional("durations") {
            for (productId, cursor) in try durations.entries() {
                guard let duration = ISO8601Duration(try cursor.string()) else { throw cursor.fail("not an ISO 8601 duration") }
                guard let product = products[productId] else { throw cursor.fail("product '\(productId)' is not in \(storeKitFile)") }
                guard case .nonRenewing = product.kind else { throw cursor.fail("product '\(productId)' is not a non-renewing subscription") }
                products[productId]?.kind = .nonRenewing(duration: duration)
            }
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
        if let features = try root.optional("features") {
            for (feature, cursor) in try features.entries() {
                rules[feature] = try decodeRule(cursor, entitlements: entitlements)
            }
        }

        var policy = IntroductoryOfferPolicy.newSubscribersOnly
        if let cursor = try root.optional("introductoryOffer") {
            let raw = try cursor.string()
            guard let parsed = IntroductoryOfferPolicy(rawValue: raw) else {
                throw cursor.fail("'\(raw)' is not newSubscribersOnly or oncePerGroup")
            }
            policy = parsed
        }

        var catalog = Catalog(
            bundleId: bundleId, environment: environments[0], environments: environments, appGroup: appGroup, storeKitPath: storeKitPath, products: products,
            entitlements: entitlements, featureGate: FeatureGate(rules: rules), introductoryOfferPolicy: policy)
        catalog.widgetFeature = try decodeFeatureName(root, "widgetFeature", rules: rules) ?? defaultWidgetFeature
        catalog.watchFeature = try decodeFeatureName(root, "watchFeature", rules: rules) ?? defaultWatchFeature
        catalog.legacyKeys = try decodeLegacyKeys(root, entitlements: entitlements)
        catalog.preferences = try decodePreferences(root, rules: rules, legacyKeys: catalog.legacyKeys)
        if let cursor = try root.optional("renewalLeeway") {
            guard let leeway = ISO8601Duration(try cursor.string()) else { throw cursor.fail("not an ISO 8601 duration") }
            guard leeway != ISO8601Duration() else { throw cursor.fail("is zero (leave the key out for no leeway)") }
            catalog.renewalLeeway = leeway
        }
        catalog.paidAppGrant = try decodePaidAppGrant(root, entitlements: entitlements)
        if let cursor = try root.optional("companionOfflineLimit") {
            guard let limit = ISO8601Duration(try cursor.string()) else { throw cursor.fail("not an ISO 8601 duration") }
            guard limit != ISO8601Duration() else { throw cursor.fail("is zero (the watch would never trust its snapshot)") }
            catalog.companionOfflineLimit = limit
        }
        return catalog
    }

    /// `paidAppGrant`: `{"entitlement": ID, "beforeVersion": "2.0", "beforeDate": ISO8601}`, at
    /// least one of the two bounds.
    private static func decodePaidAppGrant(_ root: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> PaidAppGrant? {
        guard let cursor = try root.optional("paidAppGrant") else { return nil }
        _ = try cursor.object()
        let entitlementCursor = try cursor.required("entitlement")
        let entitlement = try entitlementCursor.string()
        guard entitlements[entitlement] != nil else { throw entitlementCursor.fail("entitlement '\(entitlement)' is not in entitlements") }
        var beforeVersion: [Int]?
        if let versionCursor = try cursor.optional("beforeVersion") {
            let text = try versionCursor.string()
            guard let version = PaidAppGrant.version(text) else { throw versionCursor.fail("'\(text)' is not a dotted version of numbers (2.0)") }
            beforeVersion = version
        }
        var beforeDate: Date?
        if let dateCursor = try cursor.optional("beforeDate") {
            let text = try dateCursor.string()
            guard let date = ISO8601.date(from: text) else { throw dateCursor.fail("'\(text)' is not an ISO 8601 date and time") }
            beforeDate = date
        }
        guard beforeVersion != nil || beforeDate != nil else { throw cursor.fail("names neither beforeVersion nor beforeDate") }
        return PaidAppGrant(entitlement: entitlement, beforeVersion: beforeVersion, beforeDate: beforeDate)
    }

    /// `legacyKeys`: suite key -> entitlement id; a key may not be the snapshot's own.
    private static func decodeLegacyKeys(_ root: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> [String: String] {
        guard let cursor = try root.optional("legacyKeys") else { return [:] }
        var keys: [String: String] = [:]
        for (key, item) in try cursor.entries() {
            guard !key.isEmpty, key != EntitlementSnapshot.defaultsKey else {
                throw item.fail("'\(key)' cannot be a legacy key (the snapshot's key, or empty)")
            }
            let entitlement = try item.string()
            guard entitlements[entitlement] != nil else { throw item.fail("entitlement '\(entitlement)' is not in entitlements") }
            keys[key] = entitlement
        }
        return keys
    }

    /// `preferences`: suite key -> `{"feature": F, "default": bool}` (`default` false when left
    /// out). The key may be neither the snapshot's nor a legacy key (each publish rewrites those),
    /// and `features` must define F.
    private static func decodePreferences(
        _ root: JSONCursor, rules: [String: FeatureRule], legacyKeys: [String: String]
    ) throws(JSONPathError) -> [String: PreferenceDeclaration] {
        guard let cursor = try root.optional("preferences") else { return [:] }
        var preferences: [String: PreferenceDeclaration] = [:]
        for (key, item) in try cursor.entries() {
            guard !key.isEmpty, key != EntitlementSnapshot.defaultsKey, legacyKeys[key] == nil else {
                throw item.fail("'\(key)' cannot be a preference key (the snapshot's key, a legacy key, or empty)")
            }
            for (member, value) in try item.entries() where member != "feature" && member != "default" {
                throw value.fail("unknown key (a preference has feature and default)")
            }
            let featureCursor = try item.required("feature")
            let feature = try featureCursor.string()
            guard rules[feature] != nil else {
                throw featureCursor.fail("feature '\(feature)' is not in features (\(rules.keys.sorted().joined(separator: ", ")))")
            }
            preferences[key] = PreferenceDeclaration(feature: feature, defaultValue: try item.optionalBool("default") ?? false)
        }
        return preferences
    }

    /// The feature the optional `key` names, which `features` must define.
    private static func decodeFeatureName(_ root: JSONCursor, _ key: String, rules: [String: FeatureRule]) throws(JSONPathError) -> String? {
        guard let cursor = try root.optional(key) else { return nil }
        let name = try cursor.string()
        guard rules[name] != nil else {
            throw cursor.fail("feature '\(name)' is not in features (\(rules.keys.sorted().joined(separator: ", ")))")
        }
        return name
    }

    /// `environment`: one name, or a non-empty list of distinct names, each a known environment.
    private static func decodeEnvironments(_ cursor: JSONCursor) throws(JSONPathError) -> [StoreEnvironment] {
        func known(_ item: JSONCursor) throws(JSONPathError) -> StoreEnvironment {
            let environment = StoreEnvironment(rawValue: try item.string())
            guard StoreEnvironment.known.contains(environment) else {
                throw item.fail("'\(environment.rawValue)' is not Production, Sandbox, Xcode or LocalTesting")
            }
            return environment
        }
        if case .string = cursor.value { return [try known(cursor)] }
        guard case .array = cursor.value else { throw cursor.fail("not a string or a list of strings") }
        let items = try cursor.array()
        var environments: [StoreEnvironment] = []
        for item in items {
            let environment = try known(item)
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
        if let cursor = try root.optional("attributionWindow") {
            guard let window = ISO8601Duration(try cursor.string()) else { throw cursor.fail("not an ISO 8601 duration") }
            attributionWindow = window
        }
        var defaultCooldown: ISO8601Duration?
        if let cursor = try root.optional("paywallCooldown") {
            guard let cooldown = ISO8601Duration(try cursor.string()) else { throw cursor.fail("not an ISO 8601 duration") }
            defaultCooldown = cooldown
        }
        var groups: [String: String] = [:]
        for product in products.values {
            if case .autoRenewable(let group, _) = product.kind { groups[product.id] = group }
        }
        var gate = featureGate
        for (feature, rule) in gate.rules {
            var rule = rule
            if rule.cooldown == nil { rule.cooldown = defaultCooldown }
            let unlocking = rule.entitlement.flatMap { entitlements[$0] } ?? []
            rule.introOfferGroups = Set(
                unlocking.compactMap { id in products[id].flatMap { $0.introductoryOffer != nil ? groups[id] : nil } })
            gate.rules[feature] = rule
        }
        featureGate = gate
    }

    private static func decodeSignatures(
        _ root: JSONCursor, environments: [StoreEnvironment], catalogPath: String, files: [String: [UInt8]]
    ) throws(JSONPathError) -> SignaturePolicy {
        var requirement = SignaturePolicy.defaultRequirement(for: environments)
        if let cursor = try root.optional("signatures") {
            let raw = try cursor.string()
            guard let parsed = SignaturePolicy.Requirement(rawValue: raw) else { throw cursor.fail("'\(raw)' is not required or optional") }
            requirement = parsed
        }
        var roots: [X509Certificate] = []
        if let list = try root.optional("trustedRoots") {
            for item in try list.array() {
                let path = try item.string()
                guard !path.isEmpty else { throw item.fail("is empty") }
                let file = resolve(path, relativeTo: catalogPath)
                guard let contents = files[file] else { throw item.fail("\(file): cannot be read") }
                do { roots.append(try X509Certificate(fileContents: contents)) } catch { throw item.fail("\(file): \(error.description)") }
            }
        }
        var grantKeys: [String: ECDSAPublicKey] = [:]
        if let keys = try root.optional("grantKeys") {
            for (keyId, item) in try keys.entries() {
                guard !keyId.isEmpty else { throw item.fail("a key id is empty") }
                let path = try item.string()
                guard !path.isEmpty else { throw item.fail("is empty") }
                let file = resolve(path, relativeTo: catalogPath)
                guard let contents = files[file] else { throw item.fail("\(file): cannot be read") }
                let key: ECDSAPublicKey
                do { key = try ECDSAPublicKey(publicKeyFile: contents) } catch { throw item.fail("\(file): public key: \(error.problem)") }
                guard key.curve == .p256 else { throw item.fail("\(file): not a P-256 key (grants are ES256)") }
                grantKeys[keyId] = key.prepared(.manySignatures)
            }
        }
        return SignaturePolicy(requirement: requirement, trustedRoots: roots, grantKeys: grantKeys)
    }

    private static func decodeRule(_ cursor: JSONCursor, entitlements: [String: Set<String>]) throws(JSONPathError) -> FeatureRule {
        _ = try cursor.object()
        var entitlement: String?
        if let entitlementCursor = try cursor.optional("entitlement") {
            let name = try entitlementCursor.string()
            guard entitlements[name] != nil else { throw entitlementCursor.fail("entitlement '\(name)' is not in entitlements") }
            entitlement = name
        }
        var freeCount: Int?, freeDays: Int?
        if let limit = try cursor.optional("freeLimit") {
            _ = try limit.object()
            if let count = try limit.optional("count") {
                freeCount = try count.integer()
                guard let value = freeCount, value >= 0 else { throw count.fail("negative") }
            }
            if let days = try limit.optional("days") {
                freeDays = try days.integer()
                guard let value = freeDays, value >= 0 else { throw days.fail("negative") }
            }
        }
        var copy = FeatureGate.fallbackCopy
        var byReason: [String: PaywallCopyOverride] = [:]
        var cooldown: ISO8601Duration?
        if let paywall = try cursor.optional("paywall") {
            copy = PaywallCopy(
                title: try paywall.required("title").string(),
                message: try paywall.required("message").string(),
                callToAction: try paywall.optionalString("callToAction") ?? FeatureGate.fallbackCopy.callToAction)
            if let overrides = try paywall.optional("byReason") {
                for (reason, override) in try overrides.entries() {
                    guard reason == FeatureRule.introOfferCopyKey || PaywallCopyOverride.reasons.contains(reason) else {
                        throw override.fail("unknown reason (one of \(([FeatureRule.introOfferCopyKey] + PaywallCopyOverride.reasons).joined(separator: ", ")))")
                    }
                    _ = try override.object()
                    byReason[reason] = PaywallCopyOverride(
                        title: try override.optionalString("title"), message: try override.optionalString("message"),
                        callToAction: try override.optionalString("callToAction"))
                }
            }
            if let cooldownCursor = try paywall.optional("cooldown") {
                guard let parsed = ISO8601Duration(try cooldownCursor.string()) else { throw cooldownCursor.fail("not an ISO 8601 duration") }
                cooldown = parsed
            }
        }
        return FeatureRule(
            entitlement: entitlement, freeCount: freeCount, freeDays: freeDays, paywall: copy, copyByReason: byReason, cooldown: cooldown)
    }
}
