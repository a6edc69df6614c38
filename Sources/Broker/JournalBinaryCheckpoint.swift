import StoreKitFormats
import FoundationEssentials

/// Reads the binary checkpoint records (`N`, `T`, `R`) that journals written before fact
/// records (``JournalRecord/Kind/fact``) held, so such a journal still replays; the daemon then
/// rewrites it with fact records. Nothing writes these records any more.
///
/// A payload is escaped so that it holds no newline (0x0A is 0xFE 0x01, 0xFE is 0xFE 0x02).
/// Unescaped: the names record is a count and that many texts; a transaction record is its
/// `originalTransactionId`, its product (a name's position), its `purchaseDate`, a byte saying
/// which of `expiresDate`, `signedDate`, `revocationDate` follow and whether it was upgraded,
/// those dates, its `transactionId`, then `tag value` pairs up to tag 0; a renewal info record is
/// its `originalTransactionId` then `tag value` pairs up to tag 0. Counts, lengths and positions
/// are LEB128; text is its length and UTF-8 bytes; a date is the 8 little-endian bytes of its
/// `timeIntervalSinceReferenceDate`'s bits; other numbers are 8 little-endian bytes.
struct JournalBinaryCheckpoint {
    /// The names record's texts: the strings the transactions name by position.
    private var names: [String]?

    /// Reads a names record; `false` when it is unreadable.
    mutating func readNames(_ payload: ArraySlice<UInt8>) -> Bool {
        guard var reader = Reader(escaped: payload), let count = reader.number(), count <= payload.count else { return false }
        var names: [String] = []
        for _ in 0..<count {
            guard let name = reader.text() else { return false }
            names.append(name)
        }
        guard reader.atEnd else { return false }
        self.names = names
        return true
    }

    /// The transaction of a transaction record; `nil` when it is unreadable (or no names record came first).
    func transaction(_ payload: ArraySlice<UInt8>) -> StoreTransaction? {
        guard let names, var r = Reader(escaped: payload), let original = r.text(), let product = r.name(names),
            let purchaseDate = r.date(), let present = r.byte(), present & ~0x0F == 0
        else { return nil }
        let expires = present & 1 != 0 ? r.date() : nil, signed = present & 2 != 0 ? r.date() : nil
        let revoked = present & 4 != 0 ? r.date() : nil
        guard let id = r.text() else { return nil }
        var t = StoreTransaction(
            transactionId: id, originalTransactionId: original, productId: product, purchaseDate: purchaseDate, expiresDate: expires,
            type: .autoRenewable, signedDate: signed, revocationDate: revoked, isUpgraded: present & 8 != 0)
        while !r.failed {
            guard let tag = r.byte() else { return nil }
            switch tag {
            case 0: return r.atEnd ? t : nil
            case 1: t.webOrderLineItemId = r.text()
            case 2: t.bundleId = r.name(names)
            case 3: t.subscriptionGroupIdentifier = r.name(names)
            case 4: t.originalPurchaseDate = r.date()
            case 5: t.quantity = r.integer().map { Int($0) }
            case 6: t.type = r.name(names).map(StoreProductType.init(rawValue:)) ?? t.type
            case 7: t.appAccountToken = r.text()
            case 8: t.inAppOwnershipType = r.name(names).map(OwnershipType.init(rawValue:)) ?? t.inAppOwnershipType
            case 9: t.revocationReason = r.integer().map { RevocationReason(rawValue: Int($0)) }
            case 10: t.revocationType = r.name(names).map(RevocationType.init(rawValue:))
            case 11: t.offerType = r.integer().map { OfferType(rawValue: Int($0)) }
            case 12: t.offerIdentifier = r.name(names)
            case 13: t.offerDiscountType = r.name(names).map(OfferDiscountType.init(rawValue:))
            case 14: t.offerPeriod = r.name(names)
            case 15: t.environment = r.name(names).map(StoreEnvironment.init(rawValue:))
            case 16: t.storefront = r.name(names)
            case 17: t.storefrontId = r.name(names)
            case 18: t.transactionReason = r.name(names).map(TransactionReason.init(rawValue:))
            case 19: t.price = r.integer()
            case 20: t.currency = r.name(names)
            default: return nil
            }
        }
        return nil
    }

    /// The renewal info of a renewal info record; `nil` when it is unreadable.
    func renewalInfo(_ payload: ArraySlice<UInt8>) -> RenewalInfo? {
        guard var r = Reader(escaped: payload), let original = r.text() else { return nil }
        var info = RenewalInfo(originalTransactionId: original)
        while !r.failed {
            guard let tag = r.byte() else { return nil }
            switch tag {
            case 0: return r.atEnd ? info : nil
            case 1: info.autoRenewStatus = r.flag()
            case 2: info.autoRenewProductId = r.text()
            case 3: info.productId = r.text()
            case 4: info.isInBillingRetryPeriod = r.flag()
            case 5: info.gracePeriodExpiresDate = r.date()
            case 6: info.expirationIntent = r.integer().map { ExpirationIntent(rawValue: Int($0)) }
            case 7: info.signedDate = r.date()
            case 8: info.renewalDate = r.date()
            case 9: info.recentSubscriptionStartDate = r.date()
            case 10: info.offerType = r.integer().map { OfferType(rawValue: Int($0)) }
            case 11: info.offerIdentifier = r.text()
            case 12: info.offerDiscountType = r.text().map(OfferDiscountType.init(rawValue:))
            case 13: info.environment = r.text().map(StoreEnvironment.init(rawValue:))
            default: return nil
            }
        }
        return nil
    }

    /// Reads values from an unescaped payload; the first read that fails sets ``failed`` and
    /// returns `nil`, as do all after it.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        var failed = false

        /// The bytes `payload` escapes; `nil` when an escape is not followed by 0x01 or 0x02.
        init?(escaped payload: ArraySlice<UInt8>) {
            var bytes: [UInt8] = []
            var escape = false
            for byte in payload {
                if escape {
                    guard byte == 1 || byte == 2 else { return nil }
                    bytes.append(byte == 1 ? 0x0A : 0xFE)
                    escape = false
                } else if byte == 0xFE {
                    escape = true
                } else {
                    bytes.append(byte)
                }
            }
            guard !escape else { return nil }
            self.bytes = bytes
        }

        var atEnd: Bool { !failed && position == bytes.count }

        mutating func fail<T>() -> T? {
            failed = true
            return nil
        }

        mutating func byte() -> UInt8? {
            guard !failed, position < bytes.count else { return fail() }
            defer { position += 1 }
            return bytes[position]
        }

        /// A LEB128 number of at most 63 bits.
        mutating func number() -> Int? {
            var value = 0
            for shift in stride(from: 0, to: 63, by: 7) {
                guard let byte = byte() else { return nil }
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
            }
            return fail()
        }

        mutating func text() -> String? {
            guard let count = number() else { return nil }
            guard count <= bytes.count - position, let text = String(validating: bytes[position..<(position + count)], as: UTF8.self) else {
                return fail()
            }
            position += count
            return text
        }

        mutating func name(_ names: [String]) -> String? {
            guard let position = number() else { return nil }
            guard position < names.count else { return fail() }
            return names[position]
        }

        mutating func integer() -> Int64? {
            guard !failed, bytes.count - position >= 8 else { return fail() }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
            position += 8
            return Int64(bitPattern: value)
        }

        /// A finite date.
        mutating func date() -> Date? {
            guard let bits = integer() else { return nil }
            let interval = Double(bitPattern: UInt64(bitPattern: bits))
            guard interval.isFinite else { return fail() }
            return Date(timeIntervalSinceReferenceDate: interval)
        }

        mutating func flag() -> Bool? {
            guard let byte = byte() else { return nil }
            guard byte <= 1 else { return fail() }
            return byte == 1
        }
    }
}
