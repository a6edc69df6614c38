#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes one input line (one JSON object) into the facts it carries.
///
/// Accepted shapes, told apart by their keys:
/// - a transaction (`transactionId`): `Transaction.jsonRepresentation` / `JWSTransactionDecodedPayload`;
/// - a renewal info (`originalTransactionId` with `autoRenewStatus`, `autoRenewProductId`,
///   `isInBillingRetryPeriod`, `gracePeriodExpiresDate`, `expirationIntent` or `renewalDate`);
/// - a decoded App Store Server Notification V2 (`notificationType`), whose `data` carries
///   `signedTransactionInfo` / `signedRenewalInfo` as JWS compact strings; a notification without
///   them (e.g. `TEST`) yields no events;
/// - the raw notification body `{"signedPayload": "<JWS>"}`;
/// - the "Get All Subscription Statuses" response (`data[].lastTransactions[]`), the transaction
///   history response (`signedTransactions[]`) and `{"signedTransactionInfo": …}` responses.
///
/// JWS signatures are NOT verified: that needs Apple's certificate chain and crypto the toolchain
/// lacks, so it belongs upstream. Only the payload is base64url-decoded. Bundle and environment
/// are still checked against the catalog by ``Catalog/validate(_:)``.
///
/// Unknown fields are ignored and unknown enumeration values are kept. Dates are milliseconds
/// since 1970, fractions allowed, and must fall between 2008 and 2200.
public enum EventDecoder {
    /// Decodes one line (UTF-8 JSON; surrounding white space allowed).
    /// - Throws: ``EventDecodingError`` with a one-line description naming the field.
    public static func decode(line: some Collection<UInt8>) throws(EventDecodingError) -> [StoreEvent] {
        let value: JSONInput
        do { value = try JSONInput.parse(line) } catch { throw .notJSON("line is not JSON: \(error.description)") }
        guard case .object = value else { throw .notJSON("line is not a JSON object") }
        do { return try decode(JSONCursor(value), allowWrapper: true) } catch { throw EventDecodingError(error) }
    }

    /// Decodes one line given as text.
    public static func decode(line: String) throws(EventDecodingError) -> [StoreEvent] {
        try decode(line: Array(line.utf8))
    }

    private static let renewalKeys = [
        "autoRenewStatus", "autoRenewProductId", "isInBillingRetryPeriod", "gracePeriodExpiresDate", "expirationIntent", "renewalDate",
    ]

    private static func decode(_ root: JSONCursor, allowWrapper: Bool) throws(JSONPathError) -> [StoreEvent] {
        if allowWrapper, let signed = try root.optional("signedPayload") {
            let payload = try jwsPayload(signed)
            guard payload.has("notificationType") else { throw signed.fail("JWS payload is not a notification (no notificationType)") }
            return try notification(payload)
        }
        if root.has("notificationType") { return try notification(root) }
        if root.has("transactionId") { return [.transaction(try transaction(root))] }
        if root.has("originalTransactionId"), renewalKeys.contains(where: root.has) { return [.renewalInfo(try renewalInfo(root))] }
        if root.has("signedTransactions") || root.has("signedTransactionInfo") || root.has("signedRenewalInfo") {
            return try signedPair(root, defaults: root)
        }
        if let data = try root.optional("data"), case .array = data.value {
            var events: [StoreEvent] = []
            for group in try data.array() {
                for item in try group.required("lastTransactions").array() { events += try signedPair(item, defaults: root) }
            }
            return events
        }
        throw root.fail("line is neither a transaction, a renewal info nor a notification (no transactionId, autoRenewStatus or notificationType)")
    }

    private static func notification(_ root: JSONCursor) throws(JSONPathError) -> [StoreEvent] {
        _ = try root.required("notificationType").string()
        guard let data = try root.optional("data") else { return [] }
        return try signedPair(data, defaults: data)
    }

    /// The transactions and renewal info signed inside `container`; `defaults` supplies
    /// `bundleId` and `environment` when a payload lacks them.
    private static func signedPair(_ container: JSONCursor, defaults: JSONCursor) throws(JSONPathError) -> [StoreEvent] {
        let bundleId = try defaults.optionalString("bundleId")
        let environment = try defaults.optionalString("environment").map(StoreEnvironment.init(rawValue:))
        var events: [StoreEvent] = []
        var signedTransactions: [JSONCursor] = []
        if let list = try container.optional("signedTransactions") { signedTransactions += try list.array() }
        if let single = try container.optional("signedTransactionInfo") { signedTransactions.append(single) }
        for signed in signedTransactions {
            var decoded = try transaction(try jwsPayload(signed))
            if decoded.bundleId == nil { decoded.bundleId = bundleId }
            if decoded.environment == nil { decoded.environment = environment }
            events.append(.transaction(decoded))
        }
        if let signed = try container.optional("signedRenewalInfo") {
            var decoded = try renewalInfo(try jwsPayload(signed))
            if decoded.environment == nil { decoded.environment = environment }
            events.append(.renewalInfo(decoded))
        }
        return events
    }

    // MARK: JWS

    /// The payload of a JWS compact serialisation (`header.payload.signature`), base64url-decoded
    /// and parsed as a JSON object. The signature is not verified.
    static func jwsPayload(_ cursor: JSONCursor) throws(JSONPathError) -> JSONCursor {
        let text = try cursor.string()
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw cursor.fail("JWS has \(parts.count) part\(parts.count == 1 ? "" : "s"), expected 3") }
        guard let bytes = base64URLDecode(parts[1]) else { throw cursor.fail("JWS payload is not base64url") }
        guard let value = try? JSONInput.parse(bytes), case .object = value else { throw cursor.fail("JWS payload is not a JSON object") }
        return JSONCursor(value, path: cursor.path, rootLabel: cursor.path)
    }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    // MARK: Payloads

    /// The transaction fields read, in the order they are checked.
    enum TransactionField: Int, PayloadField {
        case transactionId, purchaseDate, expiresDate, type, originalTransactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, originalPurchaseDate, quantity, appAccountToken, inAppOwnershipType, signedDate
        case revocationReason, revocationDate, revocationType, isUpgraded, offerType, offerIdentifier, offerDiscountType
        case offerPeriod, environment, storefront, storefrontId, transactionReason, price, currency
        static let keys = caseNames()
        static let positions = positionsByKey()
    }

    static func transaction(_ root: JSONCursor) throws(JSONPathError) -> StoreTransaction {
        let root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "transaction" : root.path)
        let fields = try PayloadMembers<TransactionField>(root)
        let transactionId = try fields.required(.transactionId).identifier()
        let purchaseDate = try date(fields.required(.purchaseDate))
        let expiresDate = try optionalDate(fields.optional(.expiresDate))
        let typeRaw = try fields.optionalString(.type)
        return StoreTransaction(
            transactionId: transactionId,
            originalTransactionId: try fields.optionalIdentifier(.originalTransactionId) ?? transactionId,
            webOrderLineItemId: try fields.optionalIdentifier(.webOrderLineItemId),
            bundleId: try fields.optionalString(.bundleId),
            productId: try nonEmpty(fields.required(.productId)),
            subscriptionGroupIdentifier: try fields.optionalIdentifier(.subscriptionGroupIdentifier),
            purchaseDate: purchaseDate,
            originalPurchaseDate: try optionalDate(fields.optional(.originalPurchaseDate)),
            expiresDate: expiresDate,
            quantity: try fields.optionalInteger(.quantity),
            type: typeRaw.map(StoreProductType.init(rawValue:)) ?? (expiresDate == nil ? .nonConsumable : .autoRenewable),
            appAccountToken: try fields.optionalString(.appAccountToken),
            inAppOwnershipType: try fields.optionalString(.inAppOwnershipType).map(OwnershipType.init(rawValue:)) ?? .purchased,
            signedDate: try optionalDate(fields.optional(.signedDate)),
            revocationReason: try fields.optionalInteger(.revocationReason).map(RevocationReason.init(rawValue:)),
            revocationDate: try optionalDate(fields.optional(.revocationDate)),
            revocationType: try fields.optionalString(.revocationType).map(RevocationType.init(rawValue:)),
            isUpgraded: try fields.optionalFlag(.isUpgraded) ?? false,
            offerType: try fields.optionalInteger(.offerType).map(OfferType.init(rawValue:)),
            offerIdentifier: try fields.optionalString(.offerIdentifier),
            offerDiscountType: try fields.optionalString(.offerDiscountType).map(OfferDiscountType.init(rawValue:)),
            offerPeriod: try fields.optionalString(.offerPeriod),
            environment: try fields.optionalString(.environment).map(StoreEnvironment.init(rawValue:)),
            storefront: try fields.optionalString(.storefront),
            storefrontId: try fields.optionalIdentifier(.storefrontId),
            transactionReason: try fields.optionalString(.transactionReason).map(TransactionReason.init(rawValue:)),
            price: try fields.optional(.price).map(price),
            currency: try fields.optionalString(.currency))
    }

    /// The renewal-info fields read, in the order they are checked.
    enum RenewalInfoField: Int, PayloadField {
        case originalTransactionId, autoRenewStatus, autoRenewProductId, productId, isInBillingRetryPeriod, gracePeriodExpiresDate
        case expirationIntent, signedDate, renewalDate, recentSubscriptionStartDate, offerType, offerIdentifier, offerDiscountType
        case environment
        static let keys = caseNames()
        static let positions = positionsByKey()
    }

    static func renewalInfo(_ root: JSONCursor) throws(JSONPathError) -> RenewalInfo {
        let root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "renewal info" : root.path)
        let fields = try PayloadMembers<RenewalInfoField>(root)
        return RenewalInfo(
            originalTransactionId: try fields.required(.originalTransactionId).identifier(),
            autoRenewStatus: try fields.optionalFlag(.autoRenewStatus),
            autoRenewProductId: try fields.optionalString(.autoRenewProductId),
            productId: try fields.optionalString(.productId),
            isInBillingRetryPeriod: try fields.optionalFlag(.isInBillingRetryPeriod),
            gracePeriodExpiresDate: try optionalDate(fields.optional(.gracePeriodExpiresDate)),
            expirationIntent: try fields.optionalInteger(.expirationIntent).map(ExpirationIntent.init(rawValue:)),
            signedDate: try optionalDate(fields.optional(.signedDate)),
            renewalDate: try optionalDate(fields.optional(.renewalDate)),
            recentSubscriptionStartDate: try optionalDate(fields.optional(.recentSubscriptionStartDate)),
            offerType: try fields.optionalInteger(.offerType).map(OfferType.init(rawValue:)),
            offerIdentifier: try fields.optionalString(.offerIdentifier),
            offerDiscountType: try fields.optionalString(.offerDiscountType).map(OfferDiscountType.init(rawValue:)),
            environment: try fields.optionalString(.environment).map(StoreEnvironment.init(rawValue:)))
    }

    // MARK: Fields

    /// 2008-01-01T00:00:00Z and 2200-01-01T00:00:00Z in milliseconds: the App Store did not
    /// exist before the first, and anything after the second is corrupt or hostile.
    static let earliestMilliseconds = 1_199_145_600_000.0
    static let latestMilliseconds = 7_258_118_400_000.0

    static func date(_ cursor: JSONCursor) throws(JSONPathError) -> Date {
        let milliseconds = try cursor.double()
        guard milliseconds >= earliestMilliseconds, milliseconds <= latestMilliseconds else {
            throw cursor.fail("\(milliseconds) ms is out of range (before 2008 or after 2200)")
        }
        return dateFromMilliseconds(milliseconds)
    }

    /// The one conversion from StoreKit's milliseconds since 1970 to a `Date`.
    static func dateFromMilliseconds(_ milliseconds: Double) -> Date { Date(timeIntervalSince1970: milliseconds / 1000) }

    private static func optionalDate(_ cursor: JSONCursor?) throws(JSONPathError) -> Date? {
        guard let cursor else { return nil }
        return try date(cursor)
    }

    /// A price in milliunits; one beyond `Int64` is refused, not trapped on.
    private static func price(_ cursor: JSONCursor) throws(JSONPathError) -> Int64 {
        let value = try cursor.double().rounded()
        guard let price = Int64(exactly: value) else { throw cursor.fail("\(value) is out of range for a price") }
        return price
    }

    private static func nonEmpty(_ cursor: JSONCursor) throws(JSONPathError) -> String {
        let text = try cursor.string()
        guard !text.isEmpty else { throw cursor.fail("is empty") }
        return text
    }
}
