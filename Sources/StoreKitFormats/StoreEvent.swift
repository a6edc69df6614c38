#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One fact the engine learns from: a transaction (a version of one), a renewal info, the app's
/// own purchase (an app transaction) or a developer's grant.
public enum StoreEvent: Sendable, Hashable {
    /// A version of a transaction (a purchase, renewal, refund or its reversal).
    case transaction(StoreTransaction)
    /// A version of an auto-renewable subscription's renewal state.
    case renewalInfo(RenewalInfo)
    /// The app's own purchase (`AppTransaction`), read by the catalog's `paidAppGrant`.
    case appTransaction(AppTransaction)
    /// An entitlement given outside the App Store, signed with one of the catalog's `grantKeys`.
    case grant(EntitlementGrant)

    /// When the fact was signed, if it says (an app transaction's `receiptCreationDate`): of two
    /// versions of one fact, the later one is kept.
    public var signedDate: Date? {
        switch self {
        case .transaction(let t): t.signedDate
        case .renewalInfo(let r): r.signedDate
        case .appTransaction(let a): a.signedDate
        case .grant(let g): g.signedDate
        }
    }
}
