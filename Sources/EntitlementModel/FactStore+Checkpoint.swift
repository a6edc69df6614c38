#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store's facts in binary form, for a journal checkpoint: read back straight into the form the
/// store keeps (``StoredTransaction`` and ``TransactionColdFields``), with no ``StoreTransaction``
/// and no String per field in between, so that a restart after a long history costs little more
/// than reading the file.
///
/// A checkpoint is one ``Payload/names`` payload, then one ``Payload/transaction`` payload per
/// transaction and one ``Payload/renewalInfo`` payload per renewal info. Framing and checksums
/// are the journal's business; these payloads may hold any byte.
///
/// - Names: a count, then that many strings (the repeating strings and product ids the
///   transactions refer to by position).
/// - Transaction: its `originalTransactionId` (text), its product (a name's position), its
///   `purchaseDate`, a byte saying which of `expiresDate`, `signedDate`, `revocationDate` follow
///   and whether it was upgraded, those dates, then its ``TransactionColdFields`` record, whose
///   repeating strings are names' positions.
/// - Renewal info: its `originalTransactionId`, then `tag value` pairs for the fields present,
///   then the end tag.
///
/// Numbers are LEB128 (counts, lengths, positions) or 8 bytes little-endian (dates as the bits
/// of their `timeIntervalSinceReferenceDate`, so they read back exactly); text is its UTF-8
/// length and bytes.
extension FactStore {
    /// The kinds of checkpoint payloads.
    package enum Payload: Sendable {
        case names, transaction, renewalInfo
    }

    /// Calls `body` with each payload of a checkpoint of the store's facts, in order (names,
    /// transactions, renewal infos). The buffer is valid during the call only.
    package func checkpointPayloads(_ body: (Payload, UnsafeBufferPointer<UInt8>) -> Void) {
        var bytes: [UInt8] = []
        // Names: the cold records' repeating strings keep their positions; product ids follow.
        let names = strings.values + productIds
        TransactionColdFields.appendNumber(UInt64(names.count), to: &bytes)
        for name in names { CheckpointBytes.appendText(name, to: &bytes) }
        bytes.withUnsafeBufferPointer { body(.names, $0) }
        coldBytes.withUnsafeBufferPointer { cold in
            for stored in storedTransactions {
                bytes.removeAll(keepingCapacity: true)
                CheckpointBytes.appendText(subscriptions[Int(stored.subscription)].originalTransactionId, to: &bytes)
                TransactionColdFields.appendNumber(UInt64(strings.values.count + Int(stored.product)), to: &bytes)
                CheckpointBytes.appendDate(stored.purchaseDate, to: &bytes)
                var present: UInt8 = 0
                if stored.expiresDate != nil { present |= CheckpointBytes.expires }
                if stored.signedDate != nil { present |= CheckpointBytes.signed }
                if stored.revocationDate != nil { present |= CheckpointBytes.revoked }
                if stored.flags.contains(.upgraded) { present |= CheckpointBytes.upgraded }
                bytes.append(present)
                for date in [stored.expiresDate, stored.signedDate, stored.revocationDate] {
                    if let date { CheckpointBytes.appendDate(date, to: &bytes) }
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: cold[stored.cold..<TransactionColdFields.end(cold, at: stored.cold)]))
                bytes.withUnsafeBufferPointer { body(.transaction, $0) }
            }
        }
        for info in renewalInfos {
            bytes.removeAll(keepingCapacity: true)
            RenewalInfoBytes.append(info, to: &bytes)
            bytes.withUnsafeBufferPointer { body(.renewalInfo, $0) }
        }
    }

    /// What reading one checkpoint payload did.
    package enum CheckpointInsertion: Sendable, Equatable {
        /// The store changed.
        case inserted
        /// The store already held this version or a newer one.
        case unchanged
        /// The payload is not a well-formed checkpoint payload (or names a name the checkpoint's
        /// names payload did not hold).
        case unreadable
    }

    /// Reads a checkpoint's payloads into a store, in order. Holds the names payload and what
    /// was worked out about each name (its position in the store). Every fact is kept, whatever
    /// a catalog says of its origin: that is decided when the store is evaluated.
    package struct CheckpointReader {
        private var names: [String] = []
        private var coldPositions: [Int32] = []
        private var productPositions: [Int32] = []
        /// The store's origin position of each pair of names (bundle id, environment) met.
        private var originPositions: [OriginNames: UInt16] = [:]
        /// Per name: the flags it gives as a type, an ownership, a discount type (-1: not yet worked out).
        private var typeFlags: [Int16] = []
        private var ownershipFlags: [Int16] = []
        private var discountFlags: [Int16] = []
        private var hasNames = false

        /// Names' positions of a transaction's bundle id and environment (-1: absent).
        private struct OriginNames: Hashable {
            var bundle: Int
            var environment: Int
        }

        package init() {}

        /// Reads the names payload; `false` when it is unreadable.
        package mutating func readNames(_ payload: UnsafeBufferPointer<UInt8>) -> Bool {
            var reader = CheckpointBytes.Reader(payload)
            guard let count = reader.number(), count <= payload.count else { return false }
            var names: [String] = []
            names.reserveCapacity(count)
            for _ in 0..<count {
                guard let name = reader.text() else { return false }
                names.append(name)
            }
            guard reader.atEnd else { return false }
            self.names = names
            coldPositions = Array(repeating: -1, count: count)
            productPositions = coldPositions
            originPositions = [:]
            typeFlags = Array(repeating: -1, count: count)
            ownershipFlags = typeFlags
            discountFlags = typeFlags
            hasNames = true
            return true
        }

        /// Reads a transaction payload into `facts` (``FactStore/insert(_:)``'s rule).
        package mutating func insertTransaction(_ payload: UnsafeBufferPointer<UInt8>, into facts: inout FactStore) -> CheckpointInsertion {
            guard hasNames else { return .unreadable }
            var reader = CheckpointBytes.Reader(payload)
            guard let original = reader.text(), let productName = reader.name(below: names.count), let purchaseDate = reader.date(),
                let present = reader.byte()
            else { return .unreadable }
            let expiresDate = present & CheckpointBytes.expires != 0 ? reader.date() : nil
            let signedDate = present & CheckpointBytes.signed != 0 ? reader.date() : nil
            let revocationDate = present & CheckpointBytes.revoked != 0 ? reader.date() : nil
            guard !reader.failed, present & ~CheckpointBytes.known == 0 else { return .unreadable }
            var flags: StoredTransaction.Flags = present & CheckpointBytes.upgraded != 0 ? .upgraded : []

            // The cold record: copied into the store's cold bytes, its names renumbered.
            let cold = facts.coldBytes.count
            func unreadable() -> CheckpointInsertion {
                facts.coldBytes.removeSubrange(cold...)
                return .unreadable
            }
            guard let idBytes = reader.textBytes(), CheckpointBytes.isUTF8(idBytes) else { return .unreadable }
            CheckpointBytes.appendText(idBytes, to: &facts.coldBytes)
            var bundle: Int?
            var environment: Int?
            while true {
                guard let tagByte = reader.byte(), let tag = TransactionColdFields.Tag(rawValue: tagByte) else { return unreadable() }
                facts.coldBytes.append(tagByte)
                if tag == .end { break }
                switch tag.value {
                case .text:
                    guard let text = reader.textBytes(), CheckpointBytes.isUTF8(text) else { return unreadable() }
                    CheckpointBytes.appendText(text, to: &facts.coldBytes)
                case .eightBytes:
                    guard let value = reader.eightBytes() else { return unreadable() }
                    if tag == .originalPurchaseDate, !Double(bitPattern: value).isFinite { return unreadable() }
                    if tag == .offerType { flags.formUnion(StoredTransaction.Flags(offerType: OfferType(rawValue: Int(truncatingIfNeeded: Int64(bitPattern: value))))) }
                    withUnsafeBytes(of: value.littleEndian) { facts.coldBytes.append(contentsOf: $0) }
                case .interned:
                    guard let name = reader.name(below: names.count) else { return unreadable() }
                    switch tag {
                    case .bundleId: bundle = name
                    case .environment: environment = name
                    case .type: flags.formUnion(typeFlag(name))
                    case .inAppOwnershipType: flags.formUnion(ownershipFlag(name))
                    case .offerDiscountType: flags.formUnion(discountFlag(name))
                    default: break
                    }
                    TransactionColdFields.appendNumber(UInt64(coldPosition(name, in: &facts)), to: &facts.coldBytes)
                }
            }
            guard reader.atEnd else { return unreadable() }
            let candidate = StoredTransaction(
                purchaseDate: purchaseDate, expiresDate: expiresDate, signedDate: signedDate, revocationDate: revocationDate, cold: cold,
                product: Int32(productPosition(productName, in: &facts)), subscription: -1, flags: flags,
                origin: originPosition(OriginNames(bundle: bundle ?? -1, environment: environment ?? -1), in: &facts))
            guard facts.insert(candidate, original: original) else { return .unchanged }
            facts.saw(signedDate)
            return .inserted
        }

        /// Reads a renewal info payload; `nil` when it is unreadable. Validation and insertion
        /// are the caller's (``FactStore/insert(_:)``).
        package func renewalInfo(_ payload: UnsafeBufferPointer<UInt8>) -> RenewalInfo? {
            RenewalInfoBytes.read(payload)
        }

        private mutating func coldPosition(_ name: Int, in facts: inout FactStore) -> Int {
            if coldPositions[name] < 0 { coldPositions[name] = Int32(facts.strings.position(of: names[name])) }
            return Int(coldPositions[name])
        }

        private mutating func productPosition(_ name: Int, in facts: inout FactStore) -> Int {
            if productPositions[name] < 0 { productPositions[name] = Int32(facts.productPosition(for: names[name])) }
            return Int(productPositions[name])
        }

        private mutating func typeFlag(_ name: Int) -> StoredTransaction.Flags {
            if typeFlags[name] < 0 { typeFlags[name] = Int16(StoredTransaction.Flags(type: StoreProductType(rawValue: names[name])).rawValue) }
            return StoredTransaction.Flags(rawValue: UInt8(typeFlags[name]))
        }

        private mutating func ownershipFlag(_ name: Int) -> StoredTransaction.Flags {
            if ownershipFlags[name] < 0 {
                ownershipFlags[name] = Int16(StoredTransaction.Flags(ownership: OwnershipType(rawValue: names[name])).rawValue)
            }
            return StoredTransaction.Flags(rawValue: UInt8(ownershipFlags[name]))
        }

        private mutating func discountFlag(_ name: Int) -> StoredTransaction.Flags {
            if discountFlags[name] < 0 {
                discountFlags[name] = Int16(StoredTransaction.Flags(discount: OfferDiscountType(rawValue: names[name])).rawValue)
            }
            return StoredTransaction.Flags(rawValue: UInt8(discountFlags[name]))
        }

        /// The store's origin position of a pair of names, worked out once per pair.
        private mutating func originPosition(_ pair: OriginNames, in facts: inout FactStore) -> UInt16 {
            if let known = originPositions[pair] { return known }
            let origin = FactOrigin(
                bundleId: pair.bundle < 0 ? nil : names[pair.bundle],
                environment: pair.environment < 0 ? nil : StoreEnvironment(rawValue: names[pair.environment]))
            let position = facts.originPosition(origin)
            // A full table's answer is not a position to remember for the pair.
            if position != FactStore.unlistedOrigin { originPositions[pair] = position }
            return position
        }
    }
}

/// The byte-level pieces of checkpoint payloads.
enum CheckpointBytes {
    /// Bits of a transaction payload's presence byte.
    static let expires: UInt8 = 1 << 0
    static let signed: UInt8 = 1 << 1
    static let revoked: UInt8 = 1 << 2
    static let upgraded: UInt8 = 1 << 3
    static let known: UInt8 = expires | signed | revoked | upgraded

    /// Whether `bytes` are UTF-8 (ASCII checked in place, anything else by the standard library).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80 || String(validating: bytes, as: UTF8.self) != nil
    }

    static func appendText(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendText($0, to: &bytes) }
    }

    static func appendText(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        TransactionColdFields.appendNumber(UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    static func appendDate(_ date: Date, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads values from a payload; every read checks bounds, and the first that fails sets
    /// ``failed`` and returns `nil` (as do all after it).
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        var failed = false

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

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

        /// A LEB128 number of at most 9 bytes (63 bits).
        mutating func number() -> Int? {
            var value = 0
            for shift in stride(from: 0, to: 63, by: 7) {
                guard let byte = byte() else { return nil }
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
            }
            return fail()
        }

        /// A position in a table of `count` names.
        mutating func name(below count: Int) -> Int? {
            guard let value = number() else { return nil }
            guard value < count else { return fail() }
            return value
        }

        mutating func textBytes() -> UnsafeBufferPointer<UInt8>? {
            guard let count = number() else { return nil }
            guard count <= bytes.count - position else { return fail() }
            defer { position += count }
            return UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])
        }

        /// Text that must be UTF-8.
        mutating func text() -> String? {
            guard let utf8 = textBytes() else { return nil }
            guard CheckpointBytes.isUTF8(utf8) else { return fail() }
            return String(decoding: utf8, as: UTF8.self)
        }

        mutating func eightBytes() -> UInt64? {
            guard !failed, bytes.count - position >= 8 else { return fail() }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
            position += 8
            return value
        }

        /// A finite date.
        mutating func date() -> Date? {
            guard let bits = eightBytes() else { return nil }
            let interval = Double(bitPattern: bits)
            guard interval.isFinite else { return fail() }
            return Date(timeIntervalSinceReferenceDate: interval)
        }
    }
}

/// A renewal info payload of a checkpoint: its `originalTransactionId`, then `tag value` pairs
/// for the fields present (flags one byte, 0 or 1; numbers and dates 8 bytes; text), then 0.
enum RenewalInfoBytes {
    private enum Tag: UInt8 {
        case end = 0
        case autoRenewStatus, autoRenewProductId, productId, isInBillingRetryPeriod, gracePeriodExpiresDate, expirationIntent
        case signedDate, renewalDate, recentSubscriptionStartDate, offerType, offerIdentifier, offerDiscountType, environment
    }

    static func append(_ r: RenewalInfo, to bytes: inout [UInt8]) {
        CheckpointBytes.appendText(r.originalTransactionId, to: &bytes)
        func flag(_ tag: Tag, _ value: Bool?) { if let value { bytes += [tag.rawValue, value ? 1 : 0] } }
        func text(_ tag: Tag, _ value: String?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            CheckpointBytes.appendText(value, to: &bytes)
        }
        func date(_ tag: Tag, _ value: Date?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            CheckpointBytes.appendDate(value, to: &bytes)
        }
        func number(_ tag: Tag, _ value: Int?) {
            guard let value else { return }
            bytes.append(tag.rawValue)
            withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
        }
        flag(.autoRenewStatus, r.autoRenewStatus)
        text(.autoRenewProductId, r.autoRenewProductId)
        text(.productId, r.productId)
        flag(.isInBillingRetryPeriod, r.isInBillingRetryPeriod)
        date(.gracePeriodExpiresDate, r.gracePeriodExpiresDate)
        number(.expirationIntent, r.expirationIntent?.rawValue)
        date(.signedDate, r.signedDate)
        date(.renewalDate, r.renewalDate)
        date(.recentSubscriptionStartDate, r.recentSubscriptionStartDate)
        number(.offerType, r.offerType?.rawValue)
        text(.offerIdentifier, r.offerIdentifier)
        text(.offerDiscountType, r.offerDiscountType?.rawValue)
        text(.environment, r.environment?.rawValue)
        bytes.append(Tag.end.rawValue)
    }

    static func read(_ payload: UnsafeBufferPointer<UInt8>) -> RenewalInfo? {
        var reader = CheckpointBytes.Reader(payload)
        guard let original = reader.text() else { return nil }
        var r = RenewalInfo(originalTransactionId: original)
        func flag() -> Bool? {
            guard let byte = reader.byte() else { return nil }
            guard byte <= 1 else { return reader.fail() }
            return byte == 1
        }
        func number() -> Int? { reader.eightBytes().map { Int(truncatingIfNeeded: Int64(bitPattern: $0)) } }
        while true {
            guard let byte = reader.byte(), let tag = Tag(rawValue: byte) else { return nil }
            switch tag {
            case .end: return reader.atEnd ? r : nil
            case .autoRenewStatus: r.autoRenewStatus = flag()
            case .autoRenewProductId: r.autoRenewProductId = reader.text()
            case .productId: r.productId = reader.text()
            case .isInBillingRetryPeriod: r.isInBillingRetryPeriod = flag()
            case .gracePeriodExpiresDate: r.gracePeriodExpiresDate = reader.date()
            case .expirationIntent: r.expirationIntent = number().map(ExpirationIntent.init(rawValue:))
            case .signedDate: r.signedDate = reader.date()
            case .renewalDate: r.renewalDate = reader.date()
            case .recentSubscriptionStartDate: r.recentSubscriptionStartDate = reader.date()
            case .offerType: r.offerType = number().map(OfferType.init(rawValue:))
            case .offerIdentifier: r.offerIdentifier = reader.text()
            case .offerDiscountType: r.offerDiscountType = reader.text().map(OfferDiscountType.init(rawValue:))
            case .environment: r.environment = reader.text().map(StoreEnvironment.init(rawValue:))
            }
            if reader.failed { return nil }
        }
    }
}
