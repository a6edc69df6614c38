#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an entitlement stands, in the contract's words (docs/contract.md, "JSON shapes").
public enum EntitlementState: String, Sendable, Hashable, CaseIterable, Codable {
    /// An auto-renewable subscription in force (including a free trial or an introductory offer).
    case subscribed
    /// A renewal failed to bill and Apple's billing grace period still gives access (until `expiresAt`).
    case inGracePeriod
    /// A renewal failed to bill and Apple is still retrying, with no access.
    case inBillingRetryPeriod
    /// The subscription or the trial ended and was not renewed.
    case expired
    /// Apple refunded or revoked the purchase (or Family Sharing stopped sharing it).
    case revoked
    /// A non-consumable or a non-renewing purchase in force.
    case purchased
    /// Nothing that grants this entitlement was ever bought.
    case notPurchased
}

/// Which kind of period the deciding transaction is in.
public enum PeriodType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A full-price period.
    case normal
    /// A paid introductory offer (pay as you go or pay up front).
    case intro
    /// A free trial.
    case trial
    /// A promotional offer the app presented (`offerType` 2).
    case promotional
    /// An offer redeemed with an offer code (`offerType` 3).
    case offerCode
    /// A win-back offer to a lapsed subscriber (`offerType` 4).
    case winBack
}

/// Why a revoked entitlement was revoked.
public enum Revocation: String, Sendable, Hashable, CaseIterable, Codable {
    /// The family organiser stopped sharing (`revocationType` `FAMILY_REVOKE`).
    case familyRevoked
    /// Apple refunded the purchase (any other revocation, prorated refunds included).
    case refunded
}

/// Whether the user bought the product, receives it through Family Sharing, bought the app
/// while it was paid, or was given it by the developer.
public enum Ownership: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user bought it.
    case purchased
    /// A family member bought it and shares it through Family Sharing.
    case familyShared
    /// The user bought the app while it was paid (the catalog's `paidAppGrant`).
    case paidApp
    /// The developer gave it outside the App Store (a grant signed with one of `grantKeys`).
    case granted
}

/// One entitlement's status at the instant its snapshot was issued.
///
/// `active` is the answer at issue time; readers must ask ``isActive(at:)`` instead, which also
/// ends access at `expiresAt` without anyone publishing again.
public struct EntitlementStatus: Sendable, Hashable {
    /// Whether access was in force at the snapshot's `issuedAt`. Use ``isActive(at:)`` to ask about now.
    public var active: Bool
    /// Where the entitlement stands (subscribed, in grace, expired, ...).
    public var state: EntitlementState
    /// Whether the deciding transaction is a trial, an introductory offer or a normal period.
    public var periodType: PeriodType
    /// When access ends: the expiry, or the grace end while in grace; `nil` when access has no end
    /// (lifetime) or there is no access.
    public var expiresAt: Date?
    /// The product of the deciding transaction (`nil` when nothing was bought).
    public var productId: String?
    /// Whether the subscription is set to renew (the renewal info's `autoRenewStatus`); `false`
    /// for purchases that do not renew.
    public var willRenew: Bool
    /// Bought by the user or shared by a family member.
    public var ownership: Ownership
    /// Every product granting the entitlement at issue, the deciding one (``productId``) first and
    /// the others in ascending order (a user may own a lifetime purchase and a subscription at
    /// once); empty when access is not in force.
    public var products: [String]
    /// Why the entitlement is revoked (state ``EntitlementState/revoked``), `nil` otherwise.
    public var revocation: Revocation?
    /// Whether access is the catalog's `renewalLeeway` past the subscription's `expiresDate`
    /// (auto-renew on, the renewal not yet arrived); ``expiresAt`` is then the leeway's end.
    public var renewalPending: Bool

    /// A status as the engine makes it. `products` defaults to the deciding product alone while
    /// active, none otherwise (what a snapshot written without `products` means).
    public init(
        active: Bool, state: EntitlementState, periodType: PeriodType = .normal, expiresAt: Date? = nil,
        productId: String? = nil, willRenew: Bool = false, ownership: Ownership = .purchased, products: [String]? = nil,
        revocation: Revocation? = nil, renewalPending: Bool = false
    ) {
        self.revocation = revocation
        self.renewalPending = renewalPending
        self.products = products ?? Self.defaultProducts(active: active, productId: productId)
        self.active = active
        self.state = state
        self.periodType = periodType
        self.expiresAt = expiresAt
        self.productId = productId
        self.willRenew = willRenew
        self.ownership = ownership
    }

    /// The granting products of a status whose deciding product is the only one: `[productId]`
    /// while active, none otherwise (what a snapshot written without `products` means).
    public static func defaultProducts(active: Bool, productId: String?) -> [String] {
        active ? productId.map { [$0] } ?? [] : []
    }

    /// The status of an entitlement nobody has bought.
    public static let notPurchased = EntitlementStatus(active: false, state: .notPurchased)

    /// Whether access is in force at `instant`: active when issued, and not past `expiresAt`.
    /// Fails closed: an inactive status never becomes active with time.
    public func isActive(at instant: Date) -> Bool {
        active && expiresAt.map { instant < $0 } ?? true
    }
}
