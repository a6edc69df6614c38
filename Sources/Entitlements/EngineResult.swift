#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the engine concluded at ``effectiveNow``.
public struct EngineResult: Sendable, Hashable {
    /// One status for every entitlement in the catalog (``EntitlementStatus/notPurchased`` where
    /// nothing applies).
    public var entitlements: [String: EntitlementStatus]
    /// The earliest instant after ``effectiveNow`` at which some entitlement changes by the
    /// passage of time alone (expiry, trial end, grace end); `nil` when none will.
    public var nextTransition: Date?
    /// The instant evaluated: the caller's clock raised to the clock floor (see
    /// ``EntitlementEngine/evaluate(_:now:floor:)``).
    public var effectiveNow: Date
    /// Subscription group id -> whether the user may still redeem the group's introductory offer,
    /// under the catalog's ``IntroductoryOfferPolicy``. Every group of the catalog is present.
    public var introductoryOfferEligibility: [String: Bool]
    /// The sorted product ids of held purchases that no entitlement of the catalog lists (consumables
    /// aside): kept, granting nothing until a catalog maps them.
    public var unmappedProducts: [String]

    /// The snapshot to publish, issued at ``effectiveNow`` (the instant its statuses were computed
    /// at), its `introOfferIneligibleGroups` from ``introductoryOfferEligibility``; `generation` is
    /// the publish counter, which the caller keeps strictly increasing.
    public func snapshot(generation: Int64) -> EntitlementSnapshot {
        EntitlementSnapshot(
            generation: generation, issuedAt: effectiveNow, nextTransition: nextTransition.flatMap { $0 > effectiveNow ? $0 : nil },
            entitlements: entitlements, unmappedProducts: unmappedProducts,
            introOfferIneligibleGroups: introductoryOfferEligibility.filter { !$0.value }.keys.sorted())
    }
}
