#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoreTransaction {
    /// A transaction's fields, declared once: their JSON keys (the case names), read by
    /// ``Reader`` from an ingested line and from a checkpoint's fact line alike, and written by
    /// ``jsonRepresentation``.
    /// A field is a coding key: the compiler gives each its case name as its JSON key, and its
    /// position as its integer, which makes its bit in a set of fields and hashes as an integer.
    enum Field: Int, CaseIterable, CodingKey {
        case transactionId, purchaseDate, expiresDate, type, originalTransactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, originalPurchaseDate, quantity, appAccountToken, inAppOwnershipType, signedDate
        case revocationReason, revocationDate, revocationType, isUpgraded, offerType, offerIdentifier, offerDiscountType
        case offerPeriod, environment, storefront, storefrontId, transactionReason, price, currency

        /// The JSON key.
        var key: String { stringValue }
        /// The field whose key's UTF-8 bytes are `key`, if any: compared as bytes with the keys of
        /// its length only, so that no `String` is made of a key to find its field.
        static func named(_ key: some Collection<UInt8>) -> Field? {
            guard key.count < byKeyLength.count else { return nil }
            return byKeyLength[key.count].first { $0.utf8.withUnsafeBufferPointer { $0.elementsEqual(key) } }?.field
        }
        /// Each field with its key's bytes, at the position of the key's length.
        private static let byKeyLength: [[(field: Field, utf8: [UInt8])]] = allCases.reduce(into: []) { table, field in
            let utf8 = Array(field.stringValue.utf8)
            while table.count <= utf8.count { table.append([]) }
            table[utf8.count].append((field, utf8))
        }
        /// The field's bit in a set of fields.
        var bit: UInt32 { 1 << UInt32(rawValue) }
    }

    /// A transaction object read one member at a time, in the order they come: each key goes to
    /// its field, a repeated key is refused, an unknown one ignored, and null counts as absent.
    struct Reader {
        private let root: JSONCursor
        private var read = Self.blank
        private static let blank = StoreTransaction(
            transactionId: "", originalTransactionId: "", productId: "", purchaseDate: Date(timeIntervalSince1970: 0), type: .nonConsumable)
        /// The fields met so far, and those of them that were not null.
        private var seen: UInt32 = 0, present: UInt32 = 0
        private var unknownKeys: Set<String> = []

        init(_ root: JSONCursor) {
            self.root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "transaction" : root.path)
        }

        /// Reads the member whose key's UTF-8 bytes are `key`.
        mutating func read(_ key: some Collection<UInt8>, _ value: JSONInput) throws(JSONPathError) {
            guard let field = Field.named(key) else {
                let key = String(decoding: key, as: UTF8.self)
                guard unknownKeys.insert(key).inserted else { throw root.fail("duplicate key \(key)") }
                return
            }
            guard seen & field.bit == 0 else { throw root.fail("duplicate key \(field.key)") }
            seen |= field.bit
            if case .null = value { return }
            present |= field.bit
            let member = root.member(field.key, value)
            switch field {
            case .transactionId: read.transactionId = try member.identifier()
            case .purchaseDate: read.purchaseDate = try EventDecoder.date(member)
            case .expiresDate: read.expiresDate = try EventDecoder.date(member)
            case .type: read.type = StoreProductType(rawValue: try member.string())
            case .originalTransactionId: read.originalTransactionId = try member.identifier()
            case .webOrderLineItemId: read.webOrderLineItemId = try member.identifier()
            case .bundleId: read.bundleId = try member.string()
            case .productId: read.productId = try member.nonEmptyString()
            case .subscriptionGroupIdentifier: read.subscriptionGroupIdentifier = try member.identifier()
            case .originalPurchaseDate: read.originalPurchaseDate = try EventDecoder.date(member)
            case .quantity: read.quantity = try member.integer()
            case .appAccountToken: read.appAccountToken = try member.string()
            case .inAppOwnershipType: read.inAppOwnershipType = OwnershipType(rawValue: try member.string())
            case .signedDate: read.signedDate = try EventDecoder.date(member)
            case .revocationReason: read.revocationReason = RevocationReason(rawValue: try member.integer())
            case .revocationDate: read.revocationDate = try EventDecoder.date(member)
            case .revocationType: read.revocationType = RevocationType(rawValue: try member.string())
            case .isUpgraded: read.isUpgraded = try member.flag()
            case .offerType: read.offerType = OfferType(rawValue: try member.integer())
            case .offerIdentifier: read.offerIdentifier = try member.string()
            case .offerDiscountType: read.offerDiscountType = OfferDiscountType(rawValue: try member.string())
            case .offerPeriod: read.offerPeriod = try member.string()
            case .environment: read.environment = StoreEnvironment(rawValue: try member.string())
            case .storefront: read.storefront = try member.string()
            case .storefrontId: read.storefrontId = try member.identifier()
            case .transactionReason: read.transactionReason = TransactionReason(rawValue: try member.string())
            case .price: read.price = try EventDecoder.price(member)
            case .currency: read.currency = try member.string()
            }
        }

        /// The transaction read; refused when a required field is missing. Without
        /// `originalTransactionId` it is its own original; without `type`, a non-consumable
        /// unless it expires.
        consuming func transaction() throws(JSONPathError) -> StoreTransaction {
            if let missing = Self.required.first(where: { present & $0.bit == 0 }) { throw root.fail("missing \(missing.key)") }
            var transaction = read
            if present & Field.originalTransactionId.bit == 0 { transaction.originalTransactionId = transaction.transactionId }
            if present & Field.type.bit == 0 { transaction.type = transaction.expiresDate == nil ? .nonConsumable : .autoRenewable }
            return transaction
        }
        private static let required: [Field] = [.transactionId, .purchaseDate, .productId]

        /// Whether a `transactionId` member was met: the object is a transaction.
        var metTransactionId: Bool { seen & Field.transactionId.bit != 0 }
    }

    /// The transaction in StoreKit 2's `jsonRepresentation` shape (the server's
    /// `JWSTransactionDecodedPayload`): the field names ``EventDecoder`` reads, dates as
    /// milliseconds since 1970, absent optionals omitted. What tools and tests feed to `ingest`.
    public var jsonRepresentation: JSONValue {
        var object: [String: JSONValue] = [:]
        for field in Field.allCases {
            let value: JSONValue?
            switch field {
            case .transactionId: value = .string(transactionId)
            case .originalTransactionId: value = .string(originalTransactionId)
            case .webOrderLineItemId: value = webOrderLineItemId.map(JSONValue.string)
            case .bundleId: value = bundleId.map(JSONValue.string)
            case .productId: value = .string(productId)
            case .subscriptionGroupIdentifier: value = subscriptionGroupIdentifier.map(JSONValue.string)
            case .purchaseDate: value = .milliseconds(purchaseDate)
            case .originalPurchaseDate: value = originalPurchaseDate.map(JSONValue.milliseconds)
            case .expiresDate: value = expiresDate.map(JSONValue.milliseconds)
            case .quantity: value = quantity.map { .int(Int64($0)) }
            case .type: value = .string(type.rawValue)
            case .appAccountToken: value = appAccountToken.map(JSONValue.string)
            case .inAppOwnershipType: value = .string(inAppOwnershipType.rawValue)
            case .signedDate: value = signedDate.map(JSONValue.milliseconds)
            case .revocationReason: value = revocationReason.map { .int(Int64($0.rawValue)) }
            case .revocationDate: value = revocationDate.map(JSONValue.milliseconds)
            case .revocationType: value = revocationType.map { .string($0.rawValue) }
            case .isUpgraded: value = isUpgraded ? .bool(true) : nil
            case .offerType: value = offerType.map { .int(Int64($0.rawValue)) }
            case .offerIdentifier: value = offerIdentifier.map(JSONValue.string)
            case .offerDiscountType: value = offerDiscountType.map { .string($0.rawValue) }
            case .offerPeriod: value = offerPeriod.map(JSONValue.string)
            case .environment: value = environment.map { .string($0.rawValue) }
            case .storefront: value = storefront.map(JSONValue.string)
            case .storefrontId: value = storefrontId.map(JSONValue.string)
            case .transactionReason: value = transactionReason.map { .string($0.rawValue) }
            case .price: value = price.map(JSONValue.int)
            case .currency: value = currency.map(JSONValue.string)
            }
            if let value { object[field.key] = value }
        }
        return .object(object)
    }
}
