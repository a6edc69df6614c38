#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An entitlement given outside the App Store (a web purchase, a support gesture), signed by the
/// developer with one of the catalog's `grantKeys` (a JWS whose header `kid` names the key).
///
/// For one ``grantId`` the version with the newest ``signedDate`` is in force: a replayed older
/// one changes nothing, and a newer one with ``revoked`` ends the grant.
public struct EntitlementGrant: Sendable, Hashable {
    /// The grant's identity across its versions (`grantId`).
    public var grantId: String
    /// The catalog entitlement it gives (`entitlement`).
    public var entitlement: String
    /// When access ends (`expiresDate`, milliseconds); `nil` for no end.
    public var expiresDate: Date?
    /// Whether this version takes the grant back (`revoked`).
    public var revoked: Bool
    /// Why it was given or taken back, for people (`reason`).
    public var reason: String?
    /// The app it is for (`bundleId`).
    public var bundleId: String
    /// When the developer signed this version (`signedDate`, milliseconds).
    public var signedDate: Date
    /// The `kid` of the grant key that signed it; `nil` when it came unsigned. A signed grant
    /// counts while the catalog's `grantKeys` still names its key; under `signatures: required`
    /// only a signed grant counts.
    public var keyId: String?

    /// A grant from its fields.
    public init(
        grantId: String, entitlement: String, expiresDate: Date?, revoked: Bool, reason: String?, bundleId: String, signedDate: Date,
        keyId: String?
    ) {
        self.grantId = grantId
        self.entitlement = entitlement
        self.expiresDate = expiresDate
        self.revoked = revoked
        self.reason = reason
        self.bundleId = bundleId
        self.signedDate = signedDate
        self.keyId = keyId
    }
}
