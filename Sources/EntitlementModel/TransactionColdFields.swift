#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of a transaction that ``StoredTransaction`` does not hold, as bytes in one buffer
/// that a ``FactStore`` shares among all its transactions: no allocation per transaction.
///
/// A record is the `transactionId` (always first, so ties can read it quickly), then one
/// `tag value` pair per present field, then the end tag. Values: a String unique to the
/// transaction (ids, tokens) is its length (LEB128) and UTF-8 bytes; a repeating String is its
/// position in the store's ``InternedStrings`` (LEB128); a number or a date is its 8 bytes
/// (little-endian integer, or the bits of the date's `timeIntervalSinceReferenceDate`), so every
/// value reads back exactly. `originalTransactionId`, `productId` and the fields of
/// ``StoredTransaction`` are not repeated here.
enum TransactionColdFields {
    enum Tag: UInt8 {
        case end = 0
        case webOrderLineItemId, bundleId, subscriptionGroupIdentifier, originalPurchaseDate, quantity, type, appAccountToken
        case inAppOwnershipType, revocationReason, revocationType, offerType, offerIdentifier, offerDiscountType, offerPeriod
        case environment, storefront, storefrontId, transactionReason, price, currency

        /// How the tag's value is written.
        enum Value { case text, interned, eightBytes }

        var value: Value {
            switch self {
            case .webOrderLineItemId, .appAccountToken: .text
            case .originalPurchaseDate, .quantity, .revocationReason, .offerType, .price: .eightBytes
            default: .interned
            }
        }
    }

    /// Appends the record of `t` to `bytes`.
    static func append(_ t: StoreTransaction, to bytes: inout [UInt8], strings: inout InternedStrings) {
        appendText(t.transactionId, to: &bytes)
        func text(_ tag: Tag, _ value: String?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            appendText(value, to: &bytes)
        }
        func interned(_ tag: Tag, _ value: String?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            appendNumber(UInt64(strings.position(of: value)), to: &bytes)
        }
        func number(_ tag: Tag, _ value: Int64?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func date(_ tag: Tag, _ value: Date?) {
            number(tag, value.map { Int64(bitPattern: $0.timeIntervalSinceReferenceDate.bitPattern) })
        }
        text(.webOrderLineItemId, t.webOrderLineItemId)
        interned(.bundleId, t.bundleId)
        interned(.subscriptionGroupIdentifier, t.subscriptionGroupIdentifier)
        date(.originalPurchaseDate, t.originalPurchaseDate)
        number(.quantity, t.quantity.map(Int64.init))
        interned(.type, t.type.rawValue)
        text(.appAccountToken, t.appAccountToken)
        interned(.inAppOwnershipType, t.inAppOwnershipType.rawValue)
        number(.revocationReason, t.revocationReason.map { Int64($0.rawValue) })
        interned(.revocationType, t.revocationType?.rawValue)
        number(.offerType, t.offerType.map { Int64($0.rawValue) })
        interned(.offerIdentifier, t.offerIdentifier)
        interned(.offerDiscountType, t.offerDiscountType?.rawValue)
        interned(.offerPeriod, t.offerPeriod)
        interned(.environment, t.environment?.rawValue)
        interned(.storefront, t.storefront)
        interned(.storefrontId, t.storefrontId)
        interned(.transactionReason, t.transactionReason?.rawValue)
        number(.price, t.price)
        interned(.currency, t.currency)
        bytes.append(Tag.end.rawValue)
    }

    /// The `transactionId` of the record at `offset`.
    static func transactionId(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
        var position = offset
        return readText(bytes, &position)
    }

    /// The UTF-8 bytes of the `transactionId` of the record at `offset`.
    static func transactionIdBytes(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UnsafeBufferPointer<UInt8> {
        var position = offset
        let count = readIndex(bytes, &position)
        return UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// Where the record at `offset` ends (just after its end tag).
    static func end(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        var position = offset
        position += readIndex(bytes, &position)
        while true {
            let tag = Tag(rawValue: bytes[position])!  // written by `append` only
            position += 1
            if tag == .end { return position }
            switch tag.value {
            case .text: position += readIndex(bytes, &position)
            case .eightBytes: position += 8
            case .interned: _ = readIndex(bytes, &position)
            }
        }
    }

    /// Sets every field of `t` the record at `offset` holds (the others keep their values).
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, into t: inout StoreTransaction, strings: InternedStrings) {
        var position = offset
        t.transactionId = readText(bytes, &position)
        while true {
            let tag = Tag(rawValue: bytes[position])!  // written by `append` only
            position += 1
            switch tag {
            case .end: return
            case .webOrderLineItemId: t.webOrderLineItemId = readText(bytes, &position)
            case .bundleId: t.bundleId = strings[readIndex(bytes, &position)]
            case .subscriptionGroupIdentifier: t.subscriptionGroupIdentifier = strings[readIndex(bytes, &position)]
            case .originalPurchaseDate: t.originalPurchaseDate = readDate(bytes, &position)
            case .quantity: t.quantity = Int(readNumber(bytes, &position))
            case .type: t.type = StoreProductType(rawValue: strings[readIndex(bytes, &position)])
            case .appAccountToken: t.appAccountToken = readText(bytes, &position)
            case .inAppOwnershipType: t.inAppOwnershipType = OwnershipType(rawValue: strings[readIndex(bytes, &position)])
            case .revocationReason: t.revocationReason = RevocationReason(rawValue: Int(readNumber(bytes, &position)))
            case .revocationType: t.revocationType = RevocationType(rawValue: strings[readIndex(bytes, &position)])
            case .offerType: t.offerType = OfferType(rawValue: Int(readNumber(bytes, &position)))
            case .offerIdentifier: t.offerIdentifier = strings[readIndex(bytes, &position)]
            case .offerDiscountType: t.offerDiscountType = OfferDiscountType(rawValue: strings[readIndex(bytes, &position)])
            case .offerPeriod: t.offerPeriod = strings[readIndex(bytes, &position)]
            case .environment: t.environment = StoreEnvironment(rawValue: strings[readIndex(bytes, &position)])
            case .storefront: t.storefront = strings[readIndex(bytes, &position)]
            case .storefrontId: t.storefrontId = strings[readIndex(bytes, &position)]
            case .transactionReason: t.transactionReason = TransactionReason(rawValue: strings[readIndex(bytes, &position)])
            case .price: t.price = readNumber(bytes, &position)
            case .currency: t.currency = strings[readIndex(bytes, &position)]
            }
        }
    }

    // MARK: Values

    static func appendNumber(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            appendNumber(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    private static func readIndex(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Int {
        var value = 0
        var shift = 0
        while true {
            let byte = bytes[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    private static func readText(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> String {
        let count = readIndex(bytes, &position)
        defer { position += count }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<(position + count)]), as: UTF8.self)
    }

    private static func readNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Int64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
        position += 8
        return Int64(bitPattern: value)
    }

    private static func readDate(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: readNumber(bytes, &position))))
    }
}
