#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One fact the engine learns from: a transaction (a version of one) or a renewal info.
public enum StoreEvent: Sendable, Hashable {
    /// A version of a transaction (a purchase, renewal, refund or its reversal).
    case transaction(StoreTransaction)
    /// A version of an auto-renewable subscription's renewal state.
    case renewalInfo(RenewalInfo)

    /// When Apple signed the fact, if it says.
    public var signedDate: Date? {
        switch self {
        case .transaction(let t): t.signedDate
        case .renewalInfo(let r): r.signedDate
        }
    }
}
