#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One transaction as ``FactStore`` holds it: the fields the engine decides with, fixed-width and
/// free of Strings, and where the rest of the transaction is kept (``TransactionColdFields``).
/// About a tenth of a ``StoreTransaction``'s footprint, so a store of 200,000 distinct
/// transactions fits in a few tens of MiB.
struct StoredTransaction: Sendable {
    var purchaseDate: Date
    var expiresDate: Date?
    var signedDate: Date?
    var revocationDate: Date?
    /// Byte offset in ``FactStore``'s cold bytes of the other fields.
    var cold: Int
    /// Position in ``FactStore/productIds``.
    var product: Int32
    /// Position in ``FactStore``'s subscriptions.
    var subscription: Int32
    /// The next transaction of the same subscription, -1 after the last.
    var nextMember: Int32 = -1
    var flags: Flags
    /// Position in ``FactStore/origins`` of its bundle id and environment; ``FactStore/unlistedOrigin``
    /// when the table is full and the origin must be read from the cold fields.
    var origin: UInt16 = 0

    /// What the engine reads of the enumerations, as bits.
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let upgraded = Flags(rawValue: 1 << 0)
        static let familyShared = Flags(rawValue: 1 << 1)
        static let nonConsumable = Flags(rawValue: 1 << 2)
        /// `offerType` 1.
        static let introductoryOffer = Flags(rawValue: 1 << 3)
        /// Any other `offerType`.
        static let otherOffer = Flags(rawValue: 1 << 4)
        /// `offerDiscountType` `FREE_TRIAL`.
        static let freeTrialDiscount = Flags(rawValue: 1 << 5)
        /// Any other `offerDiscountType`.
        static let otherDiscount = Flags(rawValue: 1 << 6)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(_ transaction: StoreTransaction) {
            self = Self(type: transaction.type).union(Self(ownership: transaction.inAppOwnershipType))
                .union(Self(offerType: transaction.offerType)).union(Self(discount: transaction.offerDiscountType))
            if transaction.isUpgraded { insert(.upgraded) }
        }

        // One field each, so that a reader of stored fields (a checkpoint) derives the same bits.
        init(type: StoreProductType) { self = type == .nonConsumable ? .nonConsumable : [] }
        init(ownership: OwnershipType) { self = ownership == .familyShared ? .familyShared : [] }
        init(offerType: OfferType?) { self = offerType.map { $0 == .introductory ? .introductoryOffer : .otherOffer } ?? [] }
        init(discount: OfferDiscountType?) { self = discount.map { $0 == .freeTrial ? .freeTrialDiscount : .otherDiscount } ?? [] }

        /// Whether the transaction redeemed an offer, and whether it was introductory.
        var offer: (introductory: Bool, discountIsFreeTrial: Bool?)? {
            guard contains(.introductoryOffer) || contains(.otherOffer) else { return nil }
            let discount: Bool? = contains(.freeTrialDiscount) ? true : contains(.otherDiscount) ? false : nil
            return (contains(.introductoryOffer), discount)
        }
    }
}
