#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

extension EntitlementSnapshot {
    /// The instant from which a watch's reader stops trusting this snapshot: `offlineLimit`
    /// (the catalog's `companionOfflineLimit`) after ``companionSyncedAt``. The bound holds a
    /// reader that is the watch's (the watch extension, `widget-renderer --device watch`) always,
    /// and any reader (`entitlementctl check`) of a snapshot the watch's broker published
    /// (``device``); `nil` for any other, or when the watch never synced with its phone and
    /// judges from its own events alone.
    public func watchTrustedUntil(offlineLimit: ISO8601Duration, readerIsWatch: Bool) -> Date? {
        guard readerIsWatch || device == .watch, let companionSyncedAt else { return nil }
        return offlineLimit.added(to: companionSyncedAt)
    }

    /// Whether a reader may judge from this snapshot at `now`: always, unless it is held to the
    /// staleness bound and its effective now (``effectiveNow(wallClock:)``, so a clock set back
    /// never makes an old sync young again) has reached ``watchTrustedUntil(offlineLimit:readerIsWatch:)``.
    /// A snapshot it may not judge from counts as none: every feature fails closed
    /// (`PaywallReason.noSnapshot`), as when no snapshot could be read, because a refund or a
    /// revocation on the phone since then could not have reached the watch.
    public func isTrusted(at now: Date, offlineLimit: ISO8601Duration, readerIsWatch: Bool) -> Bool {
        guard let until = watchTrustedUntil(offlineLimit: offlineLimit, readerIsWatch: readerIsWatch) else { return true }
        return effectiveNow(wallClock: now) < until
    }
}
