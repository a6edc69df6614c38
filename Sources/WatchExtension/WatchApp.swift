import Entitlements
import StoreKitFormats
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WidgetTimeline

/// What the watch app shows when it launches.
public enum AppLaunchGate: Sendable, Hashable {
    /// Show the app.
    case unlocked
    /// Show this paywall instead of the app.
    case paywall(Paywall)
}

/// The watch app's entitlement logic: the launch gate and the complications, both computed from
/// the snapshot the watch's own broker publishes, held to the catalog's `companionOfflineLimit`
/// (`EntitlementSnapshot.isTrusted(at:offlineLimit:readerIsWatch:)`). Pure: callers pass the
/// snapshot (or a ``SnapshotSource``) and the instant.
public struct WatchApp: Sendable {
    /// The catalog's feature gate (`Catalog/featureGate`).
    public var gate: FeatureGate
    /// The feature that gates the app itself.
    public var feature: String
    /// The feature that gates the complications.
    public var complicationFeature: String
    /// How long the snapshot is trusted after the watch's last sync with the phone (the
    /// catalog's `companionOfflineLimit`).
    public var offlineLimit: ISO8601Duration

    /// The watch app's logic for one catalog.
    /// - Parameters:
    ///   - gate: the catalog's feature gate.
    ///   - feature: the feature that gates the app (the catalog's `watchApp` by default).
    ///   - complicationFeature: defaults to `feature`.
    ///   - offlineLimit: how long the snapshot is trusted after the last sync with the phone
    ///     (the catalog's `companionOfflineLimit`, 7 days by default).
    public init(
        gate: FeatureGate, feature: String = "watchApp", complicationFeature: String? = nil,
        offlineLimit: ISO8601Duration = Catalog.defaultCompanionOfflineLimit
    ) {
        self.gate = gate
        self.feature = feature
        self.complicationFeature = complicationFeature ?? feature
        self.offlineLimit = offlineLimit
    }

    /// The launch gate at `now`. A snapshot whose last sync with the phone is ``offlineLimit``
    /// old counts as no snapshot (paywall with reason `noSnapshot`); otherwise (a watch that
    /// never synced included) the feature gate decides, which locks at the entitlement's own
    /// `expiresAt` with no new data.
    public func launch(snapshot: EntitlementSnapshot?, now: Date) -> AppLaunchGate {
        let trusted = snapshot.flatMap { $0.isTrusted(at: now, offlineLimit: offlineLimit, readerIsWatch: true) ? $0 : nil }
        switch gate.check(feature, snapshot: trusted, wallClock: now) {
        case .unlocked: return .unlocked
        case .locked(let paywall): return .paywall(paywall)
        }
    }

    /// ``launch(snapshot:now:)`` with the snapshot read from `source`.
    public func launch(from source: any SnapshotSource, now: Date) -> AppLaunchGate {
        launch(snapshot: source.currentSnapshot(), now: now)
    }

    /// A timeline for every accessory family of the watch profile. Entries turn locked
    /// (`noSnapshot`) at the offline limit as well as at the entitlement's own transitions.
    public func complications(snapshot: EntitlementSnapshot?, now: Date) -> [WidgetFamily: Timeline] {
        let provider = EntitlementTimelineProvider(gate: gate, feature: complicationFeature)
        var timelines: [WidgetFamily: Timeline] = [:]
        for family in DeviceProfile.watch.families {
            timelines[family] = provider.timeline(
                for: snapshot, in: TimelineProviderContext(family: family), now: now,
                validUntil: snapshot?.watchTrustedUntil(offlineLimit: offlineLimit, readerIsWatch: true))
        }
        return timelines
    }
}
