#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The App Store's record of the app's own purchase: StoreKit's `AppTransaction`, the server's
/// `JWSAppTransactionDecodedPayload`. What the catalog's `paidAppGrant` reads (see
/// `PaidAppGrant` in Entitlements); the other fields are not kept.
public struct AppTransaction: Sendable, Hashable {
    /// The App Store's id of this app download (`appTransactionId`): one fact per id.
    public var appTransactionId: String
    /// The app it is for (`bundleId`).
    public var bundleId: String?
    /// The build the user first bought or downloaded (`originalApplicationVersion`, the
    /// `CFBundleVersion` on iOS).
    public var originalApplicationVersion: String?
    /// When the user first bought or downloaded the app (`originalPurchaseDate`).
    public var originalPurchaseDate: Date?
    /// The environment that signed it (`receiptType`). Only `Production` grants anything: the
    /// sandbox always reports version 1.0.
    public var environment: StoreEnvironment?
    /// When the App Store signed it (`receiptCreationDate`): of two versions, the later one is kept.
    public var signedDate: Date?
    /// Whether it came in a JWS trusted under the signature rules (a chain to a trusted root);
    /// under `signatures: required` only such an app transaction counts.
    public var isSigned: Bool

    /// An app transaction from its fields.
    public init(
        appTransactionId: String, bundleId: String?, originalApplicationVersion: String?, originalPurchaseDate: Date?,
        environment: StoreEnvironment?, signedDate: Date?, isSigned: Bool
    ) {
        self.appTransactionId = appTransactionId
        self.bundleId = bundleId
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.environment = environment
        self.signedDate = signedDate
        self.isSigned = isSigned
    }
}
