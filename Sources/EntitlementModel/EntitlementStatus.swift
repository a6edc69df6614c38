#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an entitlement stands, in the contract's words (DESIGN.md, "Inspect").
public enum EntitlementState: String, Sendable, Hashable, CaseIterable, Codable {
    case subscribed
    case inGracePeriod
    case inBillingRetryPeriod
    case expired
    case revoked
    /// A non-consumable or a non-renewing purchase in force.
    case purchased
    case notPurchased
}

/// Which kind of period the deciding transaction is in.
public enum PeriodType: String, Sendable, Hashable, CaseIterable, Codable {
    case normal
    case intro
    case trial
}

/// Whether the user bought the product or receives it through Family Sharing.
public enum Ownership: String, Sendable, Hashable, CaseIterable, Codable {
    case purchased
    case familyShared
}

/// One entitlement's status at the instant its snapshot was issued.
///
/// `active` is the answer at issue time; readers must ask ``isActive(at:)`` instead, which also
/// ends access at `expiresAt` without anyone publishing again.
public struct EntitlementStatus: Sendable, Hashable {
    public var active: Bool
    public var state: EntitlementState
    public var periodType: PeriodType
    /// When access ends: the expiry, or the grace end while in grace; `nil` when access has no end
    /// (lifetime) or there is no access.
    public var expiresAt: Date?
    public var productId: String?
    public var willRenew: Bool
    public var ownership: Ownership

    public init(
        active: Bool, state: EntitlementState, periodType: PeriodType = .normal, expiresAt: Date? = nil,
        productId: String? = nil, willRenew: Bool = false, ownership: Ownership = .purchased
    ) {
        self.active = active
        self.state = state
        self.periodType = periodType
        self.expiresAt = expiresAt
        self.productId = productId
        self.willRenew = willRenew
        self.ownership = ownership
    }

    /// The status of an entitlement nobody has bought.
    public static let notPurchased = EntitlementStatus(active: false, state: .notPurchased)

    /// Whether access is in force at `instant`: active when issued, and not past `expiresAt`.
    /// Fails closed: an inactive status never becomes active with time.
    public func isActive(at instant: Date) -> Bool {
        guard active else { return false }
        guard let expiresAt else { return true }
        return instant < expiresAt
    }
}
