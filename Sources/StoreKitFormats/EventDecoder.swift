#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SignedData

/// Decodes one input line (one JSON object, or one bare JWS compact string) into the facts it
/// carries, verifying every JWS on the way.
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
///   history response (`signedTransactions[]`) and `{"signedTransactionInfo": …}` responses;
/// - an app transaction (`appTransactionId` with `receiptType` or `originalApplicationVersion`,
///   no `transactionId`): StoreKit's `AppTransaction` / `JWSAppTransactionDecodedPayload`, also
///   as the `{"signedAppTransactionInfo": …}` response;
/// - a developer's grant (`grantId`), unsigned or as a JWS signed with a catalog grant key;
/// - a bare JWS whose payload is a transaction, a renewal info, a notification, an app
///   transaction or a grant.
///
/// Every JWS goes through ``SignaturePolicy``: one that is not intact refuses the line in every
/// mode; under `required` one that is not trusted refuses it too, and so does a transaction,
/// renewal info, app transaction or grant given unsigned. A grant is the one payload signed
/// with a `grantKeys` key (header `kid`, no `x5c`), and a grant is signed with nothing else; a
/// `kid` the catalog does not name refuses the line in every mode. Bundle and environment are
/// checked against the catalog by `Catalog.validate(_:)` (module Entitlements).
///
/// Unknown fields are ignored and unknown enumeration values are kept. Dates are milliseconds
/// since 1970, fractions allowed, and must fall between 2008 and 2200.
public enum EventDecoder {
    /// Decodes one line (UTF-8 JSON or a JWS; surrounding white space allowed).
    /// - Throws: ``EventDecodingError`` with a one-line description naming the field and, for a
    ///   refused signature, the reason.
    public static func decode(line: some Collection<UInt8>, signatures: SignaturePolicy) throws(EventDecodingError) -> [StoreEvent] {
        try Array(line).withUnsafeBufferPointer { bytes throws(EventDecodingError) in try decode(bytes: bytes, signatures) }
    }

    /// One line's bytes, read in place. A bare JWS (base64url symbols and two dots) is never
    /// JSON (no JSON value has two dots outside a string), so it is told apart first and its
    /// bytes go to the JWS reader as they are.
    static func decode(bytes line: UnsafeBufferPointer<UInt8>, _ signatures: SignaturePolicy) throws(EventDecodingError) -> [StoreEvent] {
        if let jws = bareJWS(line) {
            do { return try signedLine(jws, signatures) } catch { throw EventDecodingError(error) }
        }
        let value: JSONInput
        do { value = try JSONInput.parse(line) } catch { throw .notJSON("line is not JSON: \(error.description)") }
        guard case .object = value else { throw .notJSON("line is not a JSON object") }
        do { return try decode(JSONCursor(value), signatures) } catch { throw EventDecodingError(error) }
    }

    /// Decodes one fact as the daemon keeps it in a journal checkpoint
    /// (``StoreEvent/factRepresentation``): a transaction (it has a `transactionId`), an app
    /// transaction (`appTransactionId`), a grant (`grantId`) or a renewal info, read by the same
    /// field rules as every line, with no signature policy (the fact was checked when it was
    /// accepted; `isSigned` and `keyId` say how).
    package static func fact(line: ArraySlice<UInt8>) throws(EventDecodingError) -> StoreEvent {
        // Read as a transaction, as most facts are, member by member as they come; it is one if
        // it has a `transactionId`, and another kind is read again as an object.
        var reader = StoreTransaction.Reader(JSONCursor(.null))
        var problem: JSONPathError?
        do throws(JSONSyntaxError) {
            try JSONInput.forEachMember(ofObject: line) { key, value in
                do throws(JSONPathError) { try reader.read(key, value) } catch { problem = problem ?? error }
                return nil
            }
        } catch {
            throw .notJSON("line is not a JSON object: \(error.description)")
        }
        do throws(JSONPathError) {
            if reader.metTransactionId {
                if let problem { throw problem }
                return .transaction(try reader.transaction())
            }
            let root: JSONCursor
            do { root = JSONCursor(try JSONInput.parse(line)) } catch { throw JSONPathError(path: "", problem: error.description) }
            if root.has("appTransactionId") {
                return .appTransaction(try appTransaction(root, isSigned: root.optionalBool(StoreEvent.isSignedKey) ?? false))
            }
            if root.has("grantId") { return .grant(try grant(root, keyId: root.optionalString(StoreEvent.keyIdKey))) }
            return .renewalInfo(try renewalInfo(root))
        } catch {
            throw EventDecodingError(error)
        }
    }

    private static let renewalKeys = ["autoRenewStatus", "autoRenewProductId", "isInBillingRetryPeriod", "gracePeriodExpiresDate", "expirationIntent", "renewalDate"]

    private static func decode(_ root: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> [StoreEvent] {
        if let signed = try root.optional("signedPayload") {
            let payload = try jwsPayload(signed, signatures)
            guard payload.has("notificationType") else { throw signed.fail("JWS payload is not a notification (no notificationType)") }
            return try notification(payload, signatures)
        }
        if root.has("notificationType") { return try notification(root, signatures) }
        if root.has("transactionId") || (root.has("originalTransactionId") && renewalKeys.contains(where: root.has)) {
            if signatures.requirement == .required {
                throw root.fail("unsigned payload: the catalog requires signatures (signatures: required); send the JWS instead")
            }
            return try unsignedPayload(root)
        }
        if root.has("grantId") {
            if signatures.requirement == .required {
                throw root.fail("unsigned grant: the catalog requires signatures (signatures: required); send the grant's JWS instead")
            }
            return [.grant(try grant(root, keyId: nil))]
        }
        if isAppTransaction(root) {
            if signatures.requirement == .required {
                throw root.fail("unsigned app transaction: the catalog requires signatures (signatures: required); send the JWS instead")
            }
            return [.appTransaction(try appTransaction(root, isSigned: false))]
        }
        if let signed = try root.optional("signedAppTransactionInfo") {
            let (payload, signer) = try verifiedPayload(signed, signatures)
            guard case .appStore(let trusted) = signer, isAppTransaction(payload) else {
                throw signed.fail("JWS payload is not an app transaction signed by the App Store")
            }
            return [.appTransaction(try appTransaction(payload, isSigned: trusted))]
        }
        if root.has("signedTransactions") || root.has("signedTransactionInfo") || root.has("signedRenewalInfo") {
            return try signedPair(root, defaults: root, signatures)
        }
        if let data = try root.optional("data"), case .array = data.value {
            var events: [StoreEvent] = []
            for group in try data.array() {
                for item in try group.required("lastTransactions").array() { events += try signedPair(item, defaults: root, signatures) }
            }
            return events
        }
        throw root.fail("line is neither a transaction, a renewal info nor a notification (no transactionId, autoRenewStatus or notificationType)")
    }

    /// Whether `root` is an app transaction: `appTransactionId` with one of the fields only an
    /// app transaction has (a transaction may carry `appTransactionId` too).
    private static func isAppTransaction(_ root: JSONCursor) -> Bool {
        !root.has("transactionId") && root.has("appTransactionId") && (root.has("receiptType") || root.has("originalApplicationVersion"))
    }

    /// A transaction or renewal info object, whether it came unsigned or out of a JWS.
    private static func unsignedPayload(_ root: JSONCursor) throws(JSONPathError) -> [StoreEvent] {
        if root.has("transactionId") { return [.transaction(try transaction(root))] }
        if root.has("originalTransactionId"), renewalKeys.contains(where: root.has) { return [.renewalInfo(try renewalInfo(root))] }
        throw root.fail("JWS payload is neither a transaction, a renewal info nor a notification")
    }

    /// A bare JWS line (its bytes, white space trimmed): the payload is a notification, a
    /// transaction, a renewal info, an app transaction, or (signed with a grant key) a grant.
    /// Errors name the line `JWS`.
    private static func signedLine(_ bytes: UnsafeBufferPointer<UInt8>, _ signatures: SignaturePolicy) throws(JSONPathError) -> [StoreEvent] {
        let line = JSONCursor(.null, rootLabel: "JWS")
        let jws: JWSCompact
        do throws(JWSFailure) { jws = try JWSCompact(utf8: bytes) } catch { throw line.fail(error.description) }
        let (payload, signer) = try verifiedPayload(jws, at: line, signatures)
        guard case .appStore(let trusted) = signer else {
            guard case .grantKey(let keyId) = signer, payload.has("grantId") else {
                throw line.fail("JWS signed with a grant key is not a grant (no grantId)")
            }
            return [.grant(try grant(payload, keyId: keyId))]
        }
        if payload.has("grantId") { throw line.fail("a grant must be signed with a grantKeys key (header kid, no x5c)") }
        if payload.has("notificationType") { return try notification(payload, signatures) }
        if isAppTransaction(payload) { return [.appTransaction(try appTransaction(payload, isSigned: trusted))] }
        return try unsignedPayload(payload)
    }

    /// `line` without surrounding white space, if it has the shape of a JWS compact string
    /// (base64url symbols and exactly two dots); else `nil`.
    private static func bareJWS(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = 0, end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        var dots = 0
        for byte in line[start..<end] {
            switch byte {
            case UInt8(ascii: "."): dots += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default: return nil
            }
        }
        return dots == 2 ? UnsafeBufferPointer(rebasing: line[start..<end]) : nil
    }

    private static func notification(_ root: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> [StoreEvent] {
        _ = try root.required("notificationType").string()
        guard let data = try root.optional("data") else { return [] }
        return try signedPair(data, defaults: data, signatures)
    }

    /// The transactions and renewal info signed inside `container`; `defaults` supplies
    /// `bundleId` and `environment` when a payload lacks them (which can only make the catalog's
    /// check stricter: an absent value is not checked).
    private static func signedPair(_ container: JSONCursor, defaults: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> [StoreEvent] {
        let bundleId = try defaults.optionalString("bundleId")
        let environment = try defaults.optionalString("environment").map(StoreEnvironment.init(rawValue:))
        var events: [StoreEvent] = []
        var signedTransactions: [JSONCursor] = []
        if let list = try container.optional("signedTransactions") { signedTransactions += try list.array() }
        if let single = try container.optional("signedTransactionInfo") { signedTransactions.append(single) }
        for signed in signedTransactions {
            var decoded = try transaction(try jwsPayload(signed, signatures))
            if decoded.bundleId == nil { decoded.bundleId = bundleId }
            if decoded.environment == nil { decoded.environment = environment }
            events.append(.transaction(decoded))
        }
        if let signed = try container.optional("signedRenewalInfo") {
            var decoded = try renewalInfo(try jwsPayload(signed, signatures))
            if decoded.environment == nil { decoded.environment = environment }
            events.append(.renewalInfo(decoded))
        }
        return events
    }

    // MARK: JWS

    /// The payload of the JWS compact string at `cursor`, parsed as a JSON object, once the JWS
    /// passed `signatures`: the signature is checked before the payload is interpreted, so a
    /// tampered payload is reported as a bad signature.
    static func jwsPayload(_ cursor: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> JSONCursor {
        let (payload, signer) = try verifiedPayload(cursor, signatures)
        guard case .appStore = signer else { throw cursor.fail("a grant key signs grants only, not App Store data") }
        return payload
    }

    /// Who signed a JWS that passed the signature policy.
    enum Signer {
        /// A certificate chain (`x5c`); `trusted` when it ends in a trusted root.
        case appStore(trusted: Bool)
        /// The catalog's grant key `kid`.
        case grantKey(String)
    }

    /// The payload of the JWS compact string at `cursor` and who signed it, as ``jwsPayload(_:_:)``.
    private static func verifiedPayload(_ cursor: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> (JSONCursor, Signer) {
        let jws: JWSCompact
        let text = try cursor.string()
        do throws(JWSFailure) { jws = try JWSCompact(text) } catch { throw cursor.fail(error.description) }
        return try verifiedPayload(jws, at: cursor, signatures)
    }

    /// The payload of `jws` (read from `cursor`, which names it in errors) and who signed it. A
    /// header with a certificate chain is checked by the chain rules; one without a chain but
    /// with a `kid` by the grant key that `kid` names.
    private static func verifiedPayload(_ jws: JWSCompact, at cursor: JSONCursor, _ signatures: SignaturePolicy) throws(JSONPathError) -> (JSONCursor, Signer) {
        let header = try preparedHeader(jws, at: cursor)
        let payload = try? JSONInput.parse(jws.payload)
        let signer: Signer
        if header.chain == nil, let keyId = try grantKeyId(jws, at: cursor) {
            guard let key = signatures.grantKeys[keyId] else {
                let known = signatures.grantKeys.keys.sorted()
                throw cursor.fail("unknown kid '\(keyId)': the catalog's grantKeys name \(known.isEmpty ? "no key" : known.joined(separator: ", "))")
            }
            do throws(JWSFailure) { try JWSVerifier.verify(jws, algorithm: header.algorithm, key: key) } catch {
                throw cursor.fail(error == .badSignature ? "bad signature: the JWS signature does not verify with grant key '\(keyId)'" : error.description)
            }
            signer = .grantKey(keyId)
        } else {
            // App transactions say when they were signed as receiptCreationDate.
            var signedDate: Double?
            if case .object(let members) = payload, case .number(let text)? = members["signedDate"] ?? members["receiptCreationDate"],
                let milliseconds = Double(text)
            {
                signedDate = milliseconds / 1000
            }
            do throws(JWSFailure) {
                let trust = try signatures.verifier.verify(jws, header: header, signedDate: signedDate)
                if case .untrusted(let reason) = trust, signatures.requirement == .required { throw reason }
                if case .trusted = trust { signer = .appStore(trusted: true) } else { signer = .appStore(trusted: false) }
            } catch {
                throw cursor.fail(error.description)
            }
        }
        guard let payload, case .object = payload else { throw cursor.fail("JWS payload is not a JSON object") }
        return (JSONCursor(payload, path: cursor.path, rootLabel: cursor.path.isEmpty ? cursor.rootLabel : cursor.path), signer)
    }

    /// The protected header's `kid` (`nil` when absent; any other type refused). Read only for a
    /// header without a certificate chain, so App Store data is not parsed twice.
    private static func grantKeyId(_ jws: JWSCompact, at cursor: JSONCursor) throws(JSONPathError) -> String? {
        guard let value = try? JSONInput.parse(jws.header), case .object(let members) = value else {
            throw cursor.fail("JWS header is not a JSON object")
        }
        switch members["kid"] {
        case nil: return nil
        case .string(let text): return text
        default: throw cursor.fail("JWS header kid is not a string")
        }
    }

    /// The JWS's protected header, from ``JWSHeaderCache`` when the same header text was read
    /// before, else read now (and cached when it is readable).
    private static func preparedHeader(_ jws: JWSCompact, at cursor: JSONCursor) throws(JSONPathError) -> JWSProtectedHeader {
        if let known = JWSHeaderCache.shared.header(encoded: jws.encodedHeader) { return known }
        let (algorithm, chain) = try jwsHeader(jws, at: cursor)
        let header = JWSProtectedHeader(encoded: Array(jws.encodedHeader), algorithm: algorithm, chain: chain)
        JWSHeaderCache.shared.insert(header)
        return header
    }

    /// The protected header's `alg` and `x5c` (each `nil` when absent; any other type refused).
    private static func jwsHeader(_ jws: JWSCompact, at cursor: JSONCursor) throws(JSONPathError) -> (algorithm: String?, chain: [String]?) {
        guard let value = try? JSONInput.parse(jws.header), case .object(let members) = value else {
            throw cursor.fail("JWS header is not a JSON object")
        }
        var algorithm: String?
        switch members["alg"] {
        case nil: break
        case .string(let text): algorithm = text
        default: throw cursor.fail("JWS header alg is not a string")
        }
        var chain: [String]?
        switch members["x5c"] {
        case nil: break
        case .array(let items):
            chain = []
            for item in items {
                guard case .string(let text) = item else { throw cursor.fail("JWS header x5c holds a non-string") }
                chain?.append(text)
            }
        default: throw cursor.fail("JWS header x5c is not an array")
        }
        return (algorithm, chain)
    }

    // MARK: Payloads

    static func transaction(_ root: JSONCursor) throws(JSONPathError) -> StoreTransaction {
        var reader = StoreTransaction.Reader(root)
        for (key, value) in try root.object() { try reader.read(key.utf8, value) }
        return try reader.transaction()
    }

    /// A renewal info's fields: their JSON keys (the case names), read here and written by
    /// ``RenewalInfo/jsonRepresentation``.
    enum RenewalInfoField: String, CaseIterable {
        case originalTransactionId, autoRenewStatus, autoRenewProductId, productId, isInBillingRetryPeriod, gracePeriodExpiresDate
        case expirationIntent, signedDate, renewalDate, recentSubscriptionStartDate, offerType, offerIdentifier, offerDiscountType
        case environment
    }

    static func renewalInfo(_ root: JSONCursor) throws(JSONPathError) -> RenewalInfo {
        let root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "renewal info" : root.path)
        // Each field's member; null counts as absent.
        func field(_ field: RenewalInfoField) throws(JSONPathError) -> JSONCursor? { try root.optional(field.rawValue) }
        return RenewalInfo(
            originalTransactionId: try root.required(RenewalInfoField.originalTransactionId.rawValue).identifier(),
            autoRenewStatus: try field(.autoRenewStatus)?.flag(),
            autoRenewProductId: try field(.autoRenewProductId)?.string(),
            productId: try field(.productId)?.string(),
            isInBillingRetryPeriod: try field(.isInBillingRetryPeriod)?.flag(),
            gracePeriodExpiresDate: try field(.gracePeriodExpiresDate).map(date),
            expirationIntent: (try field(.expirationIntent)?.integer()).map(ExpirationIntent.init(rawValue:)),
            signedDate: try field(.signedDate).map(date),
            renewalDate: try field(.renewalDate).map(date),
            recentSubscriptionStartDate: try field(.recentSubscriptionStartDate).map(date),
            offerType: (try field(.offerType)?.integer()).map(OfferType.init(rawValue:)),
            offerIdentifier: try field(.offerIdentifier)?.string(),
            offerDiscountType: (try field(.offerDiscountType)?.string()).map(OfferDiscountType.init(rawValue:)),
            environment: (try field(.environment)?.string()).map(StoreEnvironment.init(rawValue:)))
    }

    /// An app transaction object (see ``AppTransaction``); `isSigned` when it came in a trusted JWS.
    static func appTransaction(_ root: JSONCursor, isSigned: Bool) throws(JSONPathError) -> AppTransaction {
        let root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "app transaction" : root.path)
        return AppTransaction(
            appTransactionId: try root.required("appTransactionId").identifier(),
            bundleId: try root.optionalString("bundleId"),
            originalApplicationVersion: try root.optionalString("originalApplicationVersion"),
            originalPurchaseDate: try root.optional("originalPurchaseDate").map(date),
            environment: try root.optionalString("receiptType").map(StoreEnvironment.init(rawValue:)),
            signedDate: try root.optional("receiptCreationDate").map(date),
            isSigned: isSigned)
    }

    /// A grant object (see ``EntitlementGrant``); `keyId` names the grant key that signed it.
    static func grant(_ root: JSONCursor, keyId: String?) throws(JSONPathError) -> EntitlementGrant {
        let root = JSONCursor(root.value, path: root.path, rootLabel: root.path.isEmpty ? "grant" : root.path)
        return EntitlementGrant(
            grantId: try root.required("grantId").nonEmptyString(),
            entitlement: try root.required("entitlement").nonEmptyString(),
            expiresDate: try root.optional("expiresDate").map(date),
            revoked: try root.optionalBool("revoked") ?? false,
            reason: try root.optionalString("reason"),
            bundleId: try root.required("bundleId").nonEmptyString(),
            signedDate: try date(root.required("signedDate")),
            keyId: keyId)
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

    /// A price in milliunits; one beyond `Int64` is refused, not trapped on.
    static func price(_ cursor: JSONCursor) throws(JSONPathError) -> Int64 {
        let value = try cursor.double().rounded()
        guard let price = Int64(exactly: value) else { throw cursor.fail("\(value) is out of range for a price") }
        return price
    }
}
