import EntitlementModel
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
/// the watch's replica of the snapshot under a ``ReplicaPolicy``. Pure: callers pass the snapshot
/// (or a ``SnapshotSource``) and the instant.
public struct WatchApp: Sendable {
    /// The catalog's feature gate (`Catalog/featureGate`).
    public var gate: FeatureGate
    /// The feature that gates the app itself.
    public var feature: String
    /// The feature that gates the complications.
    public var complicationFeature: String
    /// How long the replica is trusted offline.
    public var policy: ReplicaPolicy

    /// The watch app's logic for one catalog.
    /// - Parameters:
    ///   - gate: the catalog's feature gate.
    ///   - feature: the feature that gates the app (the catalog's `watchApp` by default).
    ///   - complicationFeature: defaults to `feature`.
    ///   - policy: how long a replica is trusted without news from the phone (7 days by default).
    public init(
        gate: FeatureGate, feature: String = "watchApp", complicationFeature: String? = nil,
        policy: ReplicaPolicy = ReplicaPolicy()
    ) {
        self.gate = gate
        self.feature = feature
        self.complicationFeature = complicationFeature ?? feature
        self.policy = policy
    }

    /// The launch gate at `now`. A replica older than ``ReplicaPolicy/maximumAge`` counts as no
    /// snapshot (paywall with reason `noSnapshot`); otherwise the feature gate decides, which
    /// locks at the entitlement's own `expiresAt` with no new data.
    public func launch(snapshot: EntitlementSnapshot?, now: Date) -> AppLaunchGate {
        let trusted = snapshot.flatMap { policy.isUsable($0, now: now) ? $0 : nil }
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
    /// (`noSnapshot`) at the replica's age limit as well as at the entitlement's own transitions.
    public func complications(snapshot: EntitlementSnapshot?, now: Date) -> [WidgetFamily: Timeline] {
        let provider = EntitlementTimelineProvider(gate: gate, feature: complicationFeature)
        var timelines: [WidgetFamily: Timeline] = [:]
        for family in DeviceProfile.watch.families {
            timelines[family] = provider.timeline(
                for: snapshot, in: TimelineProviderContext(family: family), now: now,
                validUntil: snapshot.map(policy.validUntil))
        }
        return timelines
    }
}
